#include "engine/compute/vulkan/device_kv_cache.h"

#include <algorithm>

#include "engine/compute/vulkan/device.h"

namespace hearth::vulkan {
namespace {

// (cos, sin) per (position, pair) for positions [0, capacity): Rope::angles in double precision,
// so a position in the thousands loses nothing to a float product on the device.
DeviceKvCache::AngleTable angle_table(Device& device, const Rope& rope, int capacity) {
    const size_t pairs = rope.pairs();
    std::vector<float> cosines(pairs), sines(pairs);
    std::vector<float> table;
    table.reserve(static_cast<size_t>(capacity) * pairs * 2);
    for (int position = 0; position < capacity; ++position) {
        rope.angles(position, cosines.data(), sines.data());
        for (size_t i = 0; i < pairs; ++i) {
            table.push_back(cosines[i]);
            table.push_back(sines[i]);
        }
    }
    const size_t bytes = table.size() * sizeof(float);
    auto buffer = std::make_unique<Buffer>(device, std::max<size_t>(bytes, 4), Memory::Device);
    if (bytes > 0) device.upload(*buffer, 0, table.data(), bytes);
    return {std::move(buffer), static_cast<uint32_t>(pairs), rope.style() == RopeStyle::Neox};
}

}  // namespace

DeviceKvCache::DeviceKvCache(Device& device, const ModelConfig& config, const LayerRopes& ropes,
                             const KvRings& rings, KvCacheType type)
    : capacity(rings.capacity()),
      type(type),
      row_bytes((kv_row_bytes(type, config.kv_dim()) + 3) / 4 * 4) {
    for (int layer = 0; layer < config.layer_count; ++layer) {
        rows.push_back(rings.slot_count(layer));
        const size_t bytes = static_cast<size_t>(rows.back()) * row_bytes;
        keys.push_back(std::make_unique<Buffer>(device, bytes, Memory::Device));
        values.push_back(std::make_unique<Buffer>(device, bytes, Memory::Device));
        kind_of.push_back(ropes.kind_of(layer));
    }
    for (const Rope& rope : ropes.kinds()) tables.push_back(angle_table(device, rope, capacity));
}

const DeviceKvCache::AngleTable* DeviceKvCache::rope(int layer) const {
    const int kind = kind_of[static_cast<size_t>(layer)];
    return kind < 0 ? nullptr : &tables[static_cast<size_t>(kind)];
}

}  // namespace hearth::vulkan
