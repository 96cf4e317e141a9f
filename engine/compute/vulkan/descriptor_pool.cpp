#include "engine/compute/vulkan/descriptor_pool.h"

#include <algorithm>

#include "engine/compute/vulkan/device.h"
#include "engine/compute/vulkan/pipeline.h"

namespace hearth::vulkan {
namespace {

VkDescriptorPool create_pool(VkDevice device, uint32_t sets, uint32_t descriptors) {
    const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(descriptors, 1u)};
    VkDescriptorPoolCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    create.maxSets = std::max(sets, 1u);
    create.poolSizeCount = 1;
    create.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    check(vkCreateDescriptorPool(device, &create, nullptr, &pool), "creating a descriptor pool");
    return pool;
}

}  // namespace

DescriptorPool::DescriptorPool(Device& device, uint32_t sets, uint32_t descriptors)
    : m_device(device.handle()), m_pool(m_device, create_pool(m_device, sets, descriptors)) {}

VkDescriptorSet DescriptorPool::allocate(const Pipeline& pipeline, Bindings buffers) {
    const VkDescriptorSet set = allocate(pipeline.set_layout());
    pipeline.write(set, buffers);
    return set;
}

VkDescriptorSet DescriptorPool::allocate(VkDescriptorSetLayout layout) {
    VkDescriptorSetAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    allocate.descriptorPool = m_pool.get();
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    check(vkAllocateDescriptorSets(m_device, &allocate, &set), "allocating descriptors");
    return set;
}

}  // namespace hearth::vulkan
