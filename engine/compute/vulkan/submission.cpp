#include "engine/compute/vulkan/submission.h"

namespace hearth::vulkan {
namespace {

VkFence create_fence(VkDevice device) {
    VkFenceCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VkFence fence = VK_NULL_HANDLE;
    check(vkCreateFence(device, &create, nullptr, &fence), "creating a fence");
    return fence;
}

}  // namespace

// The command buffer is allocated last: when that fails, the fence is destroyed as a member.
Submission::Submission(Device& device)
    : m_device(device), m_fence(device.handle(), create_fence(device.handle())) {
    VkCommandBufferAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    allocate.commandPool = device.command_pool();
    allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    allocate.commandBufferCount = 1;
    check(vkAllocateCommandBuffers(device.handle(), &allocate, &m_commands),
          "allocating a command buffer");
}

Submission::~Submission() {
    // A lost device signals nothing: waiting would be in vain, and freeing is still allowed.
    const VkFence fence = m_fence.get();
    if (m_pending) vkWaitForFences(m_device.handle(), 1, &fence, VK_TRUE, 1'000'000'000);
    vkFreeCommandBuffers(m_device.handle(), m_device.command_pool(), 1, &m_commands);
}

void Submission::begin() {
    if (m_pending) wait();
    vkResetCommandBuffer(m_commands, 0);
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(m_commands, &begin), "recording commands");
}

void Submission::dispatch(const Pipeline& pipeline, VkDescriptorSet set,
                          PushConstants push_constants, Groups groups) {
    pipeline.check_push_constants(push_constants);
    vkCmdBindPipeline(m_commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
    vkCmdBindDescriptorSets(m_commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1,
                            &set, 0, nullptr);
    if (pipeline.push_constant_bytes() > 0) {
        vkCmdPushConstants(m_commands, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           pipeline.push_constant_bytes(), push_constants.data());
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
    check(vkEndCommandBuffer(m_commands), "recording commands");
    const VkFence fence = m_fence.get();
    check(vkResetFences(m_device.handle(), 1, &fence), "resetting a fence");
    m_device.submit(m_commands, fence);
    m_pending = true;
}

void Submission::wait() {
    if (!m_pending) return;
    m_pending = false;
    m_device.wait(m_fence.get());
}

}  // namespace hearth::vulkan
