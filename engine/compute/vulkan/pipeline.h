// A compute pipeline: one shader with its storage-buffer bindings and push-constant block, and a
// descriptor set of its own for single dispatches.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <string>

#include "engine/compute/vulkan/buffer.h"
#include "engine/compute/vulkan/descriptor_pool.h"
#include "engine/compute/vulkan/device_object.h"
#include "engine/compute/vulkan/push_constants.h"

namespace hearth::vulkan {

class Device;

// A compute shader with `bindings` storage buffers and `push_constant_bytes` of push constants;
// `name` is what errors call it.
class Pipeline final {
public:
    Pipeline(Device& device, std::string name, std::span<const uint32_t> spirv, uint32_t bindings,
             uint32_t push_constant_bytes);

    // Points the pipeline's own descriptor set's bindings at `buffers` (for single dispatches
    // through Device::run; recorded work uses sets from a DescriptorPool).
    void bind(Bindings buffers);
    // Points `set`, allocated with set_layout(), at `buffers`; throws std::invalid_argument
    // unless there is one buffer per binding.
    void write(VkDescriptorSet set, Bindings buffers) const;
    // Throws VulkanError naming the pipeline unless `constants` is the size of its block.
    void check_push_constants(const PushConstants& constants) const;

    const std::string& name() const { return m_name; }
    VkPipeline handle() const { return m_pipeline.get(); }
    VkPipelineLayout layout() const { return m_layout.get(); }
    VkDescriptorSetLayout set_layout() const { return m_set_layout.get(); }
    uint32_t bindings() const { return m_bindings; }
    VkDescriptorSet descriptor_set() const { return m_set; }
    uint32_t push_constant_bytes() const { return m_push_constant_bytes; }

private:
    VkDevice m_device;
    std::string m_name;
    uint32_t m_bindings;
    uint32_t m_push_constant_bytes;
    // In creation order, so destroyed in reverse: the pool (and with it the set) first.
    DeviceObject<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout> m_set_layout;
    DeviceObject<VkPipelineLayout, vkDestroyPipelineLayout> m_layout;
    DeviceObject<VkPipeline, vkDestroyPipeline> m_pipeline;
    DescriptorPool m_pool;
    VkDescriptorSet m_set;  // freed with m_pool
};

}  // namespace hearth::vulkan
