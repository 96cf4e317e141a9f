// Descriptor sets for many dispatches, each pointing a pipeline's bindings at buffers; freed
// together with the pool.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "engine/compute/vulkan/buffer.h"
#include "engine/compute/vulkan/device_object.h"

namespace hearth::vulkan {

class Device;
class Pipeline;

class DescriptorPool final {
public:
    // Room for `sets` sets with `descriptors` buffer bindings among them.
    DescriptorPool(Device& device, uint32_t sets, uint32_t descriptors);

    // A set for `pipeline` pointing at `buffers`; throws VulkanError when the pool is full.
    VkDescriptorSet allocate(const Pipeline& pipeline, Bindings buffers);
    // A set of `layout`, its bindings not yet pointed anywhere.
    VkDescriptorSet allocate(VkDescriptorSetLayout layout);

private:
    VkDevice m_device;
    DeviceObject<VkDescriptorPool, vkDestroyDescriptorPool> m_pool;
};

}  // namespace hearth::vulkan
