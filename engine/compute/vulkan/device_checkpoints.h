// The checkpoints of a device KV cache's rings (kv_cache.h says when they are taken and used):
// for each of KvRings' storage places, each ring's last `window` rows in buffers of their own,
// position p in row p % window. The copies run on the device (vkCmdCopyBuffer), in a few regions
// where the ring or the checkpoint wraps; a place's buffers are made when it is first used.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "engine/compute/kv_rings.h"
#include "engine/compute/vulkan/buffer.h"
#include "engine/compute/vulkan/device_kv_cache.h"

namespace hearth::vulkan {

class DeviceCheckpoints final {
public:
    // `row_bytes`: one position's keys (or values) in the cache's rows.
    DeviceCheckpoints(Device& device, size_t row_bytes);

    // Copies each ring's positions [size - window, size) into storage place `storage`.
    void save(int storage, const KvRings& rings, const DeviceKvCache& cache);
    // Copies the positions of `restore` below the rings' length back into their slots.
    void restore(const KvRings::Restore& restore, const KvRings& rings, DeviceKvCache& cache);
    // Device memory the places made so far hold.
    size_t bytes() const;

private:
    struct Place {
        std::vector<std::unique_ptr<Buffer>> keys, values;  // per layer; null for a whole one
    };

    Device& m_device;
    size_t m_row_bytes;  // one position's keys (or values)
    std::array<Place, kMaxCheckpoints> m_places;
};

}  // namespace hearth::vulkan
