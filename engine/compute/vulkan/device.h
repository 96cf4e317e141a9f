// The Vulkan device: the logical device opened on one of the instance's physical devices, with
// its compute queue, command pool and pipeline cache, and the copies and single dispatches built
// on them. Everything the Vulkan backend is built on; nothing here knows about models.
//
// Includes the rest of the device layer (errors, discovery, buffers, pipelines), which every
// user of a Device needs too.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <type_traits>

#include "engine/compute/vulkan/buffer.h"
#include "engine/compute/vulkan/descriptor_pool.h"
#include "engine/compute/vulkan/device_info.h"
#include "engine/compute/vulkan/device_object.h"
#include "engine/compute/vulkan/instance.h"
#include "engine/compute/vulkan/pipeline.h"
#include "engine/compute/vulkan/push_constants.h"
#include "engine/compute/vulkan/vulkan_error.h"

namespace hearth::vulkan {

class Device final {
public:
    // Opens `index`, or else the first discrete GPU, then integrated GPU, then (only when
    // `allow_cpu`) a CPU implementation such as lavapipe. Throws VulkanError naming why none fits.
    // `pipeline_cache`, when given, is a file the compiled pipelines are kept in between runs,
    // so a second launch compiles nothing; a missing, foreign or damaged file starts empty.
    static std::unique_ptr<Device> open(std::optional<uint32_t> index = std::nullopt,
                                        bool allow_cpu = false,
                                        std::filesystem::path pipeline_cache = {});
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    const DeviceInfo& info() const { return m_info; }
    VkDevice handle() const { return m_device.get(); }
    uint32_t memory_type(uint32_t allowed, VkMemoryPropertyFlags flags) const;
    std::optional<uint32_t> find_memory_type(uint32_t allowed, VkMemoryPropertyFlags flags) const;
    VkPipelineCache pipeline_cache() const { return m_pipeline_cache.get(); }
    // Bytes the pipeline cache holds now; saving writes them to the cache file (atomically).
    size_t pipeline_cache_bytes() const;
    void save_pipeline_cache() const;

    VkCommandPool command_pool() const { return m_command_pool.get(); }

    // Records one dispatch, submits it and waits for it to finish. Throws VulkanError naming
    // the pipeline when `push_constants` is not the size of its block.
    void run(const Pipeline& pipeline, PushConstants push_constants, uint32_t groups_x,
             uint32_t groups_y = 1, uint32_t groups_z = 1);

    // Submits recorded commands, to signal `fence` when done. Throws VulkanError; after a lost
    // device every later submission throws too.
    void submit(VkCommandBuffer commands, VkFence fence);
    // Waits for a fence; throws VulkanError when the device was lost meanwhile.
    void wait(VkFence fence);
    // Waits until the device has finished everything submitted (errors ignored: used before
    // freeing what running work may still read).
    void wait_idle() const;

    // Copies between the host and a buffer, through a staging buffer when it is not mapped.
    void upload(Buffer& buffer, size_t offset, const void* data, size_t bytes);
    void download(const Buffer& buffer, size_t offset, void* data, size_t bytes);

    // Testing switches. Staging: device buffers are never mapped, so uploads take the path a
    // discrete GPU takes. Fault: the submission after `submissions` more fails as a lost device
    // does (VK_ERROR_DEVICE_LOST), and every one after it: refused when it is submitted
    // (AtSubmit), or queued and run, its wait then reporting the loss while the submissions
    // queued behind it are still in flight (WhileRunning: a GPU that hangs or resets mid-work).
    enum class Loss { AtSubmit, WhileRunning };
    void set_staging_only(bool staging_only) { m_staging_only = staging_only; }
    bool staging_only() const { return m_staging_only; }
    void inject_device_loss_after(int submissions, Loss loss = Loss::AtSubmit) {
        m_submissions_before_loss = submissions;
        m_injected_loss = loss;
    }

private:
    Device(Instance instance, VkPhysicalDevice physical, uint32_t index,
           std::filesystem::path pipeline_cache_file);
    void copy(VkBuffer from, size_t from_offset, VkBuffer to, size_t to_offset, size_t bytes);

    // Waits for the device to finish before destroying it, so nothing it runs outlives it.
    struct WaitAndDestroy {
        void operator()(VkDevice device) const;
    };

    // Members that own Vulkan objects are declared parent first: destroyed in reverse, the
    // pipeline cache and command pool go before the device, and the device before the instance.
    Instance m_instance;
    VkPhysicalDevice m_physical;
    DeviceInfo m_info;
    VkPhysicalDeviceMemoryProperties m_memory{};
    uint32_t m_queue_family;
    // VkDevice is a dispatchable handle, a pointer on every platform.
    std::unique_ptr<std::remove_pointer_t<VkDevice>, WaitAndDestroy> m_device;
    VkQueue m_queue = VK_NULL_HANDLE;  // owned by m_device
    DeviceObject<VkCommandPool, vkDestroyCommandPool> m_command_pool;
    DeviceObject<VkPipelineCache, vkDestroyPipelineCache> m_pipeline_cache;
    std::filesystem::path m_pipeline_cache_file;
    bool m_staging_only = false;
    int m_submissions_before_loss = -1;  // -1: no fault injected
    Loss m_injected_loss = Loss::AtSubmit;
    VkFence m_fence_to_lose = VK_NULL_HANDLE;  // WhileRunning: the submission that will fail
    bool m_lost = false;
};

}  // namespace hearth::vulkan
