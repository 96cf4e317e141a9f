// The Vulkan device layer: RAII owners for the instance, the logical device with its compute
// queue and command pool, buffers and compute pipelines, plus device discovery. Everything the
// Vulkan backend is built on; nothing here knows about models.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace hearth::vulkan {

// A failed Vulkan call, naming what was being done and the VkResult.
class VulkanError : public std::runtime_error {
public:
    VulkanError(const std::string& what, VkResult result);
    VkResult result() const { return m_result; }

private:
    VkResult m_result;
};

struct DeviceInfo {
    uint32_t index = 0;  // in the driver's enumeration order
    std::string name;
    VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    uint32_t subgroup_size = 0;
    bool subgroup_arithmetic = false;       // subgroupAdd and friends in compute shaders
    uint64_t max_storage_buffer_range = 0;  // 128 MiB on lavapipe: large tensors need splitting
    uint32_t max_shared_memory = 0;
    bool float16 = false;
    bool int8 = false;

    std::string type_name() const;  // "discrete GPU", "integrated GPU", "CPU", ...
};

// Every Vulkan device the installed drivers offer. Throws VulkanError when there is no Vulkan
// driver at all.
std::vector<DeviceInfo> list_devices();

class Device;

// Where a buffer lives. Device memory is the GPU's own (weights, KV cache, activations); when the
// driver also maps it into the host (integrated GPUs, resizable BAR, lavapipe) it is written in
// place, else through a staging buffer. Host memory is what the CPU reads or writes every step
// (token ids, logits).
enum class Memory { Device, Host };

// A storage buffer. data() is null for device memory the host cannot map.
class Buffer {
public:
    Buffer(Device& device, size_t bytes, Memory memory = Memory::Host);
    ~Buffer();
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    VkBuffer handle() const { return m_buffer; }
    size_t size() const { return m_size; }
    void* data() const { return m_mapped; }

private:
    VkDevice m_device;
    VkBuffer m_buffer = VK_NULL_HANDLE;
    VkDeviceMemory m_memory = VK_NULL_HANDLE;
    void* m_mapped = nullptr;
    size_t m_size;
};

// The storage buffers one dispatch reads and writes, in binding order.
using Bindings = std::span<const Buffer* const>;

// A compute shader with `bindings` storage buffers and `push_constant_bytes` of push constants.
class Pipeline {
public:
    Pipeline(Device& device, std::span<const uint32_t> spirv, uint32_t bindings,
             uint32_t push_constant_bytes);
    ~Pipeline();
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;

    // Points the pipeline's own descriptor set's bindings at `buffers` (for single dispatches
    // through Device::run; recorded work uses sets from a DescriptorPool).
    void bind(Bindings buffers);

    VkPipeline handle() const { return m_pipeline; }
    VkPipelineLayout layout() const { return m_layout; }
    VkDescriptorSetLayout set_layout() const { return m_set_layout; }
    uint32_t bindings() const { return m_bindings; }
    VkDescriptorSet descriptor_set() const { return m_set; }
    uint32_t push_constant_bytes() const { return m_push_constant_bytes; }

private:
    void release();

    VkDevice m_device;
    uint32_t m_bindings;
    uint32_t m_push_constant_bytes;
    VkDescriptorSetLayout m_set_layout = VK_NULL_HANDLE;
    VkPipelineLayout m_layout = VK_NULL_HANDLE;
    VkShaderModule m_module = VK_NULL_HANDLE;
    VkPipeline m_pipeline = VK_NULL_HANDLE;
    VkDescriptorPool m_pool = VK_NULL_HANDLE;
    VkDescriptorSet m_set = VK_NULL_HANDLE;
};

// Descriptor sets for many dispatches, each pointing a pipeline's bindings at buffers; freed
// together with the pool.
class DescriptorPool {
public:
    DescriptorPool(Device& device, uint32_t sets, uint32_t descriptors);
    ~DescriptorPool();
    DescriptorPool(const DescriptorPool&) = delete;
    DescriptorPool& operator=(const DescriptorPool&) = delete;

    VkDescriptorSet allocate(const Pipeline& pipeline, Bindings buffers);

private:
    VkDevice m_device;
    VkDescriptorPool m_pool = VK_NULL_HANDLE;
};

class Device {
public:
    // Opens `index`, or else the first discrete GPU, then integrated GPU, then (only when
    // `allow_cpu`) a CPU implementation such as lavapipe. Throws VulkanError naming why none fits.
    // `pipeline_cache`, when given, is a file the compiled pipelines are kept in between runs,
    // so a second launch compiles nothing; a missing, foreign or damaged file starts empty.
    static std::unique_ptr<Device> open(std::optional<uint32_t> index = std::nullopt,
                                        bool allow_cpu = false,
                                        std::filesystem::path pipeline_cache = {});
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    const DeviceInfo& info() const { return m_info; }
    VkDevice handle() const { return m_device; }
    uint32_t memory_type(uint32_t allowed, VkMemoryPropertyFlags flags) const;
    std::optional<uint32_t> find_memory_type(uint32_t allowed, VkMemoryPropertyFlags flags) const;
    VkPipelineCache pipeline_cache() const { return m_pipeline_cache; }
    // Bytes the pipeline cache holds now; saving writes them to the cache file (atomically).
    size_t pipeline_cache_bytes() const;
    void save_pipeline_cache() const;

    VkCommandPool command_pool() const { return m_command_pool; }

    // Records one dispatch, submits it and waits for it to finish.
    void run(const Pipeline& pipeline, const void* push_constants, uint32_t groups_x,
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
    // does (VK_ERROR_DEVICE_LOST), and every one after it.
    void set_staging_only(bool staging_only) { m_staging_only = staging_only; }
    bool staging_only() const { return m_staging_only; }
    void inject_device_loss_after(int submissions) { m_submissions_before_loss = submissions; }

private:
    Device() = default;
    void copy(VkBuffer from, size_t from_offset, VkBuffer to, size_t to_offset, size_t bytes);

    DeviceInfo m_info;
    VkInstance m_instance = VK_NULL_HANDLE;
    VkPhysicalDevice m_physical = VK_NULL_HANDLE;
    VkDevice m_device = VK_NULL_HANDLE;
    VkQueue m_queue = VK_NULL_HANDLE;
    uint32_t m_queue_family = 0;
    VkCommandPool m_command_pool = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties m_memory{};
    VkPipelineCache m_pipeline_cache = VK_NULL_HANDLE;
    std::filesystem::path m_pipeline_cache_file;
    bool m_staging_only = false;
    int m_submissions_before_loss = -1;  // -1: no fault injected
    bool m_lost = false;
};

}  // namespace hearth::vulkan
