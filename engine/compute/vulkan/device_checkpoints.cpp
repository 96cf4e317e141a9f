#include "engine/compute/vulkan/device_checkpoints.h"

#include <algorithm>

#include "engine/compute/vulkan/submission.h"

namespace hearth::vulkan {
namespace {

// Copies of positions [first, end) from rows p % from_rows to rows p % to_rows, each region as
// long as neither side wraps.
std::vector<VkBufferCopy> runs(int first, int end, int from_rows, int to_rows, size_t row_bytes) {
    std::vector<VkBufferCopy> regions;
    for (int position = first; position < end;) {
        const int from = position % from_rows, to = position % to_rows;
        const int count = std::min({end - position, from_rows - from, to_rows - to});
        regions.push_back({from * row_bytes, to * row_bytes, count * row_bytes});
        position += count;
    }
    return regions;
}

void copy(VkCommandBuffer commands, const Buffer& from, const Buffer& to,
          const std::vector<VkBufferCopy>& regions) {
    if (regions.empty()) return;
    vkCmdCopyBuffer(commands, from.handle(), to.handle(), static_cast<uint32_t>(regions.size()),
                    regions.data());
}

}  // namespace

DeviceCheckpoints::DeviceCheckpoints(Device& device, size_t row_bytes)
    : m_device(device), m_row_bytes(row_bytes) {}

void DeviceCheckpoints::save(int storage, const KvRings& rings, const DeviceKvCache& cache) {
    Place& place = m_places[static_cast<size_t>(storage)];
    if (place.keys.empty()) {
        for (int layer = 0; layer < rings.layer_count(); ++layer) {
            const bool ring = rings.is_ring(layer);
            const size_t bytes = static_cast<size_t>(rings.window(layer)) * m_row_bytes;
            place.keys.push_back(ring ? std::make_unique<Buffer>(m_device, bytes, Memory::Device)
                                      : nullptr);
            place.values.push_back(ring ? std::make_unique<Buffer>(m_device, bytes, Memory::Device)
                                        : nullptr);
        }
    }
    Submission submission(m_device);
    submission.begin();
    for (int layer = 0; layer < rings.layer_count(); ++layer) {
        if (!rings.is_ring(layer)) continue;
        const int window = rings.window(layer);
        const auto regions = runs(std::max(0, rings.size() - window), rings.size(),
                                  rings.slot_count(layer), window, m_row_bytes);
        const auto l = static_cast<size_t>(layer);
        copy(submission.commands(), *cache.keys[l], *place.keys[l], regions);
        copy(submission.commands(), *cache.values[l], *place.values[l], regions);
    }
    submission.submit();
    submission.wait();
}

void DeviceCheckpoints::restore(const KvRings::Restore& restore, const KvRings& rings,
                                DeviceKvCache& cache) {
    const Place& place = m_places[static_cast<size_t>(restore.storage)];
    Submission submission(m_device);
    submission.begin();
    for (int layer = 0; layer < rings.layer_count(); ++layer) {
        if (!rings.is_ring(layer)) continue;
        const int window = rings.window(layer);
        const auto regions =
            runs(std::max(0, restore.saved - window), std::min(restore.saved, rings.size()), window,
                 rings.slot_count(layer), m_row_bytes);
        const auto l = static_cast<size_t>(layer);
        copy(submission.commands(), *place.keys[l], *cache.keys[l], regions);
        copy(submission.commands(), *place.values[l], *cache.values[l], regions);
    }
    submission.submit();
    submission.wait();
}

size_t DeviceCheckpoints::bytes() const {
    size_t total = 0;
    for (const Place& place : m_places) {
        for (const auto* buffers : {&place.keys, &place.values}) {
            for (const auto& buffer : *buffers) total += buffer ? buffer->size() : 0;
        }
    }
    return total;
}

}  // namespace hearth::vulkan
