#include "engine/compute/vulkan/buffer.h"

#include <algorithm>
#include <string>

#include "engine/compute/vulkan/device.h"

namespace hearth::vulkan {
namespace {

constexpr VkMemoryPropertyFlags kMappable =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

VkBuffer create_buffer(VkDevice device, size_t bytes) {
    VkBufferCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    // Shaders read storage buffers as 32-bit words: a buffer of packed blocks (Q8_0's are 34
    // bytes) is padded so its last bytes fall inside a readable word.
    create.size = (std::max<size_t>(bytes, 4) + 3) / 4 * 4;
    create.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                   VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer buffer = VK_NULL_HANDLE;
    check(vkCreateBuffer(device, &create, nullptr, &buffer), "creating a buffer");
    return buffer;
}

// The memory type for `memory`, and whether the host maps it.
std::pair<uint32_t, bool> choose_memory(const Device& device, uint32_t allowed, Memory memory) {
    if (memory == Memory::Host) return {device.memory_type(allowed, kMappable), true};
    const auto both =
        device.find_memory_type(allowed, kMappable | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (both && !device.staging_only()) return {*both, true};
    return {device.memory_type(allowed, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT), false};
}

}  // namespace

Buffer::Buffer(Device& device, size_t bytes, Memory memory)
    : m_buffer(device.handle(), create_buffer(device.handle(), bytes)), m_size(bytes) {
    const VkDevice handle = device.handle();
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(handle, m_buffer.get(), &requirements);
    const auto [type, mapped] = choose_memory(device, requirements.memoryTypeBits, memory);
    VkMemoryAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex = type;
    VkDeviceMemory allocated = VK_NULL_HANDLE;
    check(vkAllocateMemory(handle, &allocate, nullptr, &allocated),
          "allocating " + std::to_string(bytes >> 20) + " MiB of " +
              (memory == Memory::Host ? "host-visible" : "device") + " memory");
    m_memory = {handle, allocated};
    check(vkBindBufferMemory(handle, m_buffer.get(), m_memory.get(), 0), "binding buffer memory");
    if (mapped) {
        check(vkMapMemory(handle, m_memory.get(), 0, VK_WHOLE_SIZE, 0, &m_mapped),
              "mapping memory");
    }
}

}  // namespace hearth::vulkan
