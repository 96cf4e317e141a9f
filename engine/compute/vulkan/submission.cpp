#include "engine/compute/vulkan/submission.h"

namespace hearth::vulkan {

Submission::Submission(Device& device) : m_device(device) {
    VkCommandBufferAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    allocate.commandPool = device.command_pool();
    allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    allocate.commandBufferCount = 1;
    VkResult result = vkAllocateCommandBuffers(device.handle(), &allocate, &m_commands);
    if (result != VK_SUCCESS) throw VulkanError("allocating a command buffer", result);
    VkFenceCreateInfo fence{};
    fence.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    result = vkCreateFence(device.handle(), &fence, nullptr, &m_fence);
    if (result != VK_SUCCESS) {
        vkFreeCommandBuffers(device.handle(), device.command_pool(), 1, &m_commands);
        throw VulkanError("creating a fence", result);
    }
}

Submission::~Submission() {
    // A lost device signals nothing: waiting would be in vain, and freeing is still allowed.
    if (m_pending) vkWaitForFences(m_device.handle(), 1, &m_fence, VK_TRUE, 1'000'000'000);
    vkDestroyFence(m_device.handle(), m_fence, nullptr);
    vkFreeCommandBuffers(m_device.handle(), m_device.command_pool(), 1, &m_commands);
}

void Submission::begin() {
    if (m_pending) wait();
    vkResetCommandBuffer(m_commands, 0);
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    const VkResult result = vkBeginCommandBuffer(m_commands, &begin);
    if (result != VK_SUCCESS) throw VulkanError("recording commands", result);
}

void Submission::dispatch(const Pipeline& pipeline, VkDescriptorSet set, const void* push_constants,
                          Groups groups) {
    vkCmdBindPipeline(m_commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
    vkCmdBindDescriptorSets(m_commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1,
                            &set, 0, nullptr);
    if (pipeline.push_constant_bytes() > 0) {
        vkCmdPushConstants(m_commands, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           pipeline.push_constant_bytes(), push_constants);
    }
    vkCmdDispatch(m_commands, groups[0], groups[1], groups[2]);
}

void Submission::barrier() {
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(m_commands,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                             VK_PIPELINE_STAGE_HOST_BIT,
                         0, 1, &barrier, 0, nullptr, 0, nullptr);
}

void Submission::submit() {
    VkResult result = vkEndCommandBuffer(m_commands);
    if (result != VK_SUCCESS) throw VulkanError("recording commands", result);
    result = vkResetFences(m_device.handle(), 1, &m_fence);
    if (result != VK_SUCCESS) throw VulkanError("resetting a fence", result);
    m_device.submit(m_commands, m_fence);
    m_pending = true;
}

void Submission::wait() {
    if (!m_pending) return;
    m_pending = false;
    m_device.wait(m_fence);
}

}  // namespace hearth::vulkan
