// One command buffer and its fence: recorded, submitted, waited for, recorded again. The Vulkan
// backend keeps two, so the device computes one chunk of tokens while the host reads the other.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>

#include "engine/compute/vulkan/device.h"
#include "engine/compute/vulkan/device_object.h"
#include "engine/compute/vulkan/push_constants.h"

namespace hearth::vulkan {

using Groups = std::array<uint32_t, 3>;

class Submission final {
public:
    explicit Submission(Device& device);
    ~Submission();
    Submission(const Submission&) = delete;
    Submission& operator=(const Submission&) = delete;

    // Starts recording; waits first if a previous submission is still running.
    void begin();
    // Records `pipeline` on `set`; throws VulkanError naming the pipeline when `push_constants`
    // is not the size of its block.
    void dispatch(const Pipeline& pipeline, VkDescriptorSet set, PushConstants push_constants,
                  Groups groups);
    // Makes every earlier shader write visible to every later shader read (and to transfers).
    void barrier();
    void submit();
    // Waits for the submitted work; throws VulkanError when the device was lost.
    void wait();
    bool pending() const { return m_pending; }
    VkCommandBuffer commands() const { return m_commands; }

private:
    Device& m_device;
    DeviceObject<VkFence, vkDestroyFence> m_fence;
    VkCommandBuffer m_commands = VK_NULL_HANDLE;  // freed by the destructor, before m_fence
    bool m_pending = false;
};

}  // namespace hearth::vulkan
