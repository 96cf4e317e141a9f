// A storage buffer and the memory behind it.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <span>

#include "engine/compute/vulkan/device_object.h"

namespace hearth::vulkan {

class Device;

// Where a buffer lives. Device memory is the GPU's own (weights, KV cache, activations); when the
// driver also maps it into the host (integrated GPUs, resizable BAR, lavapipe) it is written in
// place, else through a staging buffer. Host memory is what the CPU reads or writes every step
// (token ids, logits).
enum class Memory { Device, Host };

// A storage buffer. data() is null for device memory the host cannot map.
class Buffer final {
public:
    Buffer(Device& device, size_t bytes, Memory memory = Memory::Host);
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    VkBuffer handle() const { return m_buffer.get(); }
    size_t size() const { return m_size; }
    void* data() const { return m_mapped; }

private:
    // Freed before the buffer is destroyed (allowed: neither is used any more), and unmapped
    // implicitly by being freed.
    DeviceObject<VkBuffer, vkDestroyBuffer> m_buffer;
    DeviceObject<VkDeviceMemory, vkFreeMemory> m_memory;
    void* m_mapped = nullptr;
    size_t m_size;
};

// The storage buffers one dispatch reads and writes, in binding order.
using Bindings = std::span<const Buffer* const>;

}  // namespace hearth::vulkan
