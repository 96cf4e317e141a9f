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

// A storage buffer in host-visible, coherent memory, mapped for its lifetime.
class Buffer {
public:
    Buffer(Device& device, size_t bytes);
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

// A compute shader with `bindings` storage buffers and `push_constant_bytes` of push constants.
class Pipeline {
public:
    Pipeline(Device& device, std::span<const uint32_t> spirv, uint32_t bindings,
             uint32_t push_constant_bytes);
    ~Pipeline();
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;

    // Points the bindings at `buffers`, in binding order.
    void bind(std::span<Buffer* const> buffers);

    VkPipeline handle() const { return m_pipeline; }
    VkPipelineLayout layout() const { return m_layout; }
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
    VkPipelineCache pipeline_cache() const { return m_pipeline_cache; }
    // Bytes the pipeline cache holds now; saving writes them to the cache file (atomically).
    size_t pipeline_cache_bytes() const;
    void save_pipeline_cache() const;

    // Records one dispatch, submits it and waits for it to finish.
    void run(const Pipeline& pipeline, const void* push_constants, uint32_t groups_x,
             uint32_t groups_y = 1, uint32_t groups_z = 1);

private:
    Device() = default;

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
};

}  // namespace hearth::vulkan
