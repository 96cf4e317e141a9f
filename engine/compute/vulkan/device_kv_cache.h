// One sequence's KV cache in device memory: F16 or Q8_0 keys and values, (slots, row) per layer
// (a sliding-window layer's ring, or a slot per position: KvRings decides; a row is one position's
// kv_dim values, Q8_0's padded to whole words), and the RoPE angles of
// every position it can hold. The angles come in one table per kind of rotation the sequence's
// LayerRopes has (Gemma 3's local layers rotate with another base than its global ones), computed
// by Rope::angles, so the device rotates exactly as the CPU does, LongRoPE's magnitude included;
// each layer's rope and kv_store dispatches read its kind's table.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/compute/kv_cache_type.h"
#include "engine/compute/kv_rings.h"
#include "engine/compute/vulkan/buffer.h"
#include "engine/model/model.h"
#include "engine/model/rope.h"

namespace hearth::vulkan {

struct DeviceKvCache {
    // One kind of rotation on the device.
    struct AngleTable {
        std::unique_ptr<Buffer> angles;  // (capacity, pairs) x (cos, sin)
        uint32_t pairs;                  // rotated dimensions / 2
        bool neox;                       // pairs (i, i + pairs) rather than (2i, 2i + 1)
    };

    DeviceKvCache(Device& device, const ModelConfig& config, const LayerRopes& ropes,
                  const KvRings& rings, KvCacheType type);

    // The rotation of `layer`, or null for a layer without RoPE (SmolLM3's every fourth).
    const AngleTable* rope(int layer) const;

    int capacity;
    KvCacheType type;
    size_t row_bytes;  // one position's keys (or values): kv_row_bytes, rounded up to whole words
    std::vector<int> rows;                              // per layer: rows of keys and values
    std::vector<std::unique_ptr<Buffer>> keys, values;  // per layer
    std::vector<AngleTable> tables;                     // per LayerRopes kind
    std::vector<int> kind_of;                           // per layer: index into tables, or -1
};

}  // namespace hearth::vulkan
