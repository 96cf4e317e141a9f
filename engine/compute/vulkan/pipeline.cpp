#include "engine/compute/vulkan/pipeline.h"

#include <stdexcept>
#include <vector>

#include "engine/compute/vulkan/device.h"

namespace hearth::vulkan {
namespace {

VkDescriptorSetLayout create_set_layout(VkDevice device, uint32_t bindings) {
    std::vector<VkDescriptorSetLayoutBinding> layout_bindings(bindings);
    for (uint32_t i = 0; i < bindings; ++i) {
        layout_bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT,
                              nullptr};
    }
    VkDescriptorSetLayoutCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    create.bindingCount = bindings;
    create.pBindings = layout_bindings.data();
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    check(vkCreateDescriptorSetLayout(device, &create, nullptr, &layout),
          "creating a descriptor set layout");
    return layout;
}

VkPipelineLayout create_layout(VkDevice device, VkDescriptorSetLayout set_layout,
                               uint32_t push_constant_bytes) {
    const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_bytes};
    VkPipelineLayoutCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    create.setLayoutCount = 1;
    create.pSetLayouts = &set_layout;
    create.pushConstantRangeCount = push_constant_bytes > 0 ? 1 : 0;
    create.pPushConstantRanges = &range;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    check(vkCreatePipelineLayout(device, &create, nullptr, &layout), "creating a pipeline layout");
    return layout;
}

// The shader module is needed only while compiling: destroyed as soon as the pipeline exists.
VkPipeline compile(const Device& device, const std::string& name, std::span<const uint32_t> spirv,
                   VkPipelineLayout layout) {
    VkShaderModuleCreateInfo module_create{};
    module_create.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    module_create.codeSize = spirv.size_bytes();
    module_create.pCode = spirv.data();
    VkShaderModule loaded = VK_NULL_HANDLE;
    check(vkCreateShaderModule(device.handle(), &module_create, nullptr, &loaded),
          "loading the " + name + " shader");
    const DeviceObject<VkShaderModule, vkDestroyShaderModule> module(device.handle(), loaded);
    VkComputePipelineCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    create.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    create.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    create.stage.module = module.get();
    create.stage.pName = "main";
    create.layout = layout;
    VkPipeline pipeline = VK_NULL_HANDLE;
    check(vkCreateComputePipelines(device.handle(), device.pipeline_cache(), 1, &create, nullptr,
                                   &pipeline),
          "compiling the " + name + " pipeline");
    return pipeline;
}

}  // namespace

Pipeline::Pipeline(Device& device, std::string name, std::span<const uint32_t> spirv,
                   uint32_t bindings, uint32_t push_constant_bytes)
    : m_device(device.handle()),
      m_name(std::move(name)),
      m_bindings(bindings),
      m_push_constant_bytes(push_constant_bytes),
      m_set_layout(m_device, create_set_layout(m_device, bindings)),
      m_layout(m_device, create_layout(m_device, m_set_layout.get(), push_constant_bytes)),
      m_pipeline(m_device, compile(device, m_name, spirv, m_layout.get())),
      m_pool(device, 1, bindings),
      m_set(m_pool.allocate(m_set_layout.get())) {}

void Pipeline::bind(Bindings buffers) {
    write(m_set, buffers);
}

void Pipeline::write(VkDescriptorSet set, Bindings buffers) const {
    if (buffers.size() != m_bindings) {
        throw std::invalid_argument("binding " + std::to_string(buffers.size()) +
                                    " buffers to the " + m_name + " pipeline, which has " +
                                    std::to_string(m_bindings));
    }
    std::vector<VkDescriptorBufferInfo> infos(buffers.size());
    std::vector<VkWriteDescriptorSet> writes(buffers.size());
    for (size_t i = 0; i < buffers.size(); ++i) {
        infos[i] = {buffers[i]->handle(), 0, VK_WHOLE_SIZE};
        writes[i] = {};
        writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        writes[i].dstSet = set;
        writes[i].dstBinding = static_cast<uint32_t>(i);
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(m_device, static_cast<uint32_t>(writes.size()), writes.data(), 0,
                           nullptr);
}

void Pipeline::check_push_constants(const PushConstants& constants) const {
    if (constants.bytes() == m_push_constant_bytes) return;
    throw VulkanError("dispatching the " + m_name + " pipeline with " +
                          std::to_string(constants.bytes()) + " bytes of push constants; its " +
                          "shader takes " + std::to_string(m_push_constant_bytes),
                      VK_ERROR_VALIDATION_FAILED_EXT);
}

}  // namespace hearth::vulkan
