#include "engine/compute/vulkan/device.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "engine/compute/vulkan/submission.h"

namespace hearth::vulkan {
namespace {

std::string result_name(VkResult result) {
    switch (result) {
        case VK_ERROR_OUT_OF_HOST_MEMORY:
            return "out of host memory";
        case VK_ERROR_OUT_OF_DEVICE_MEMORY:
            return "out of device memory";
        case VK_ERROR_INITIALIZATION_FAILED:
            return "initialization failed";
        case VK_ERROR_DEVICE_LOST:
            return "device lost";
        case VK_ERROR_INCOMPATIBLE_DRIVER:
            return "no compatible Vulkan driver";
        case VK_ERROR_LAYER_NOT_PRESENT:
            return "layer not present";
        case VK_ERROR_EXTENSION_NOT_PRESENT:
            return "extension not present";
        case VK_ERROR_FEATURE_NOT_PRESENT:
            return "feature not present";
        default:
            return "VkResult " + std::to_string(static_cast<int>(result));
    }
}

void check(VkResult result, const std::string& what) {
    if (result != VK_SUCCESS) throw VulkanError(what, result);
}

// An instance for discovery and for the device; destroyed by its owner.
VkInstance create_instance() {
    VkApplicationInfo application{};
    application.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    application.pApplicationName = "Hearth";
    application.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    create.pApplicationInfo = &application;
    VkInstance instance = VK_NULL_HANDLE;
    check(vkCreateInstance(&create, nullptr, &instance),
          "starting Vulkan (is a driver installed?)");
    return instance;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
    uint32_t count = 0;
    check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "listing Vulkan devices");
    std::vector<VkPhysicalDevice> devices(count);
    check(vkEnumeratePhysicalDevices(instance, &count, devices.data()), "listing Vulkan devices");
    return devices;
}

DeviceInfo describe(VkPhysicalDevice device, uint32_t index) {
    VkPhysicalDeviceSubgroupProperties subgroup{};
    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    VkPhysicalDeviceProperties2 properties{};
    properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(device, &properties);
    VkPhysicalDeviceShaderFloat16Int8Features float16_int8{};
    float16_int8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
    VkPhysicalDeviceFeatures2 features{};
    features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features.pNext = &float16_int8;
    vkGetPhysicalDeviceFeatures2(device, &features);
    DeviceInfo info;
    info.index = index;
    info.name = properties.properties.deviceName;
    info.type = properties.properties.deviceType;
    info.subgroup_size = subgroup.subgroupSize;
    info.subgroup_arithmetic =
        (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) != 0 &&
        (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
        subgroup.subgroupSize >= 1 && subgroup.subgroupSize <= 64;
    info.max_storage_buffer_range = properties.properties.limits.maxStorageBufferRange;
    info.max_shared_memory = properties.properties.limits.maxComputeSharedMemorySize;
    info.float16 = float16_int8.shaderFloat16 != VK_FALSE;
    info.int8 = float16_int8.shaderInt8 != VK_FALSE;
    return info;
}

void write_bindings(VkDevice device, VkDescriptorSet set, uint32_t bindings, Bindings buffers) {
    if (buffers.size() != bindings) {
        throw std::invalid_argument("binding " + std::to_string(buffers.size()) +
                                    " buffers to a pipeline with " + std::to_string(bindings));
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
    vkUpdateDescriptorSets(device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
}

int preference(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
            return 0;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
            return 1;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
            return 2;
        case VK_PHYSICAL_DEVICE_TYPE_CPU:
            return 3;
        default:
            return 4;
    }
}

}  // namespace

VulkanError::VulkanError(const std::string& what, VkResult result)
    : std::runtime_error("Vulkan: " + what + ": " + result_name(result)), m_result(result) {}

std::string DeviceInfo::type_name() const {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
            return "discrete GPU";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
            return "integrated GPU";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
            return "virtual GPU";
        case VK_PHYSICAL_DEVICE_TYPE_CPU:
            return "CPU";
        default:
            return "other";
    }
}

std::vector<DeviceInfo> list_devices() {
    const VkInstance instance = create_instance();
    std::vector<DeviceInfo> infos;
    try {
        const auto devices = physical_devices(instance);
        for (uint32_t i = 0; i < devices.size(); ++i) infos.push_back(describe(devices[i], i));
    } catch (...) {
        vkDestroyInstance(instance, nullptr);
        throw;
    }
    vkDestroyInstance(instance, nullptr);
    return infos;
}

std::unique_ptr<Device> Device::open(std::optional<uint32_t> index, bool allow_cpu,
                                     std::filesystem::path pipeline_cache) {
    std::unique_ptr<Device> device(new Device);  // private constructor: make_unique cannot
    device->m_instance = create_instance();
    const auto devices = physical_devices(device->m_instance);
    std::optional<uint32_t> chosen = index;
    if (index && *index >= devices.size()) {
        throw VulkanError("device " + std::to_string(*index) + " does not exist (there are " +
                              std::to_string(devices.size()) + ")",
                          VK_ERROR_INITIALIZATION_FAILED);
    }
    if (!chosen) {
        int best = 5;
        for (uint32_t i = 0; i < devices.size(); ++i) {
            const int rank = preference(describe(devices[i], i).type);
            if ((rank < 3 || allow_cpu) && rank < best) {
                best = rank;
                chosen = i;
            }
        }
    }
    if (!chosen) {
        throw VulkanError(devices.empty() ? "no Vulkan device"
                                          : "no GPU among the Vulkan devices (only CPU "
                                            "implementations, which are slower than Hearth's "
                                            "own CPU backend)",
                          VK_ERROR_INITIALIZATION_FAILED);
    }
    device->m_physical = devices[*chosen];
    device->m_info = describe(device->m_physical, *chosen);

    uint32_t family_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device->m_physical, &family_count, nullptr);
    std::vector<VkQueueFamilyProperties> families(family_count);
    vkGetPhysicalDeviceQueueFamilyProperties(device->m_physical, &family_count, families.data());
    const auto compute = std::find_if(families.begin(), families.end(), [](const auto& family) {
        return (family.queueFlags & VK_QUEUE_COMPUTE_BIT) != 0;
    });
    if (compute == families.end()) {
        throw VulkanError(device->m_info.name + " has no compute queue",
                          VK_ERROR_FEATURE_NOT_PRESENT);
    }
    device->m_queue_family = static_cast<uint32_t>(compute - families.begin());
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{};
    queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue.queueFamilyIndex = device->m_queue_family;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    VkDeviceCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    create.queueCreateInfoCount = 1;
    create.pQueueCreateInfos = &queue;
    check(vkCreateDevice(device->m_physical, &create, nullptr, &device->m_device),
          "opening the device");
    vkGetDeviceQueue(device->m_device, device->m_queue_family, 0, &device->m_queue);
    VkCommandPoolCreateInfo pool{};
    pool.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool.queueFamilyIndex = device->m_queue_family;
    check(vkCreateCommandPool(device->m_device, &pool, nullptr, &device->m_command_pool),
          "creating a command pool");
    vkGetPhysicalDeviceMemoryProperties(device->m_physical, &device->m_memory);

    // The driver checks the cache header (vendor, device, driver UUID) and ignores data that is
    // not its own, so a stale file costs a compile, never a wrong pipeline.
    std::vector<char> saved;
    if (!pipeline_cache.empty()) {
        std::ifstream file(pipeline_cache, std::ios::binary);
        saved.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    }
    VkPipelineCacheCreateInfo cache{};
    cache.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
    cache.initialDataSize = saved.size();
    cache.pInitialData = saved.empty() ? nullptr : saved.data();
    if (vkCreatePipelineCache(device->m_device, &cache, nullptr, &device->m_pipeline_cache) !=
        VK_SUCCESS) {
        cache.initialDataSize = 0;  // a damaged file: start empty
        cache.pInitialData = nullptr;
        check(vkCreatePipelineCache(device->m_device, &cache, nullptr, &device->m_pipeline_cache),
              "creating the pipeline cache");
    }
    device->m_pipeline_cache_file = std::move(pipeline_cache);
    return device;
}

size_t Device::pipeline_cache_bytes() const {
    size_t size = 0;
    vkGetPipelineCacheData(m_device, m_pipeline_cache, &size, nullptr);
    return size;
}

void Device::save_pipeline_cache() const {
    if (m_pipeline_cache_file.empty()) return;
    size_t size = pipeline_cache_bytes();
    std::vector<char> data(size);
    check(vkGetPipelineCacheData(m_device, m_pipeline_cache, &size, data.data()),
          "reading the pipeline cache");
    // Written beside and renamed over, so a crash never leaves half a cache.
    std::error_code error;
    std::filesystem::create_directories(m_pipeline_cache_file.parent_path(), error);
    auto temporary = m_pipeline_cache_file;
    temporary += ".partial";
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        file.write(data.data(), static_cast<std::streamsize>(size));
        if (!file) return;  // a cache that cannot be saved only costs compile time next run
    }
    std::filesystem::rename(temporary, m_pipeline_cache_file, error);
}

Device::~Device() {
    if (m_device != VK_NULL_HANDLE) {
        vkDeviceWaitIdle(m_device);
        if (m_command_pool != VK_NULL_HANDLE)
            vkDestroyCommandPool(m_device, m_command_pool, nullptr);
        vkDestroyDevice(m_device, nullptr);
    }
    if (m_instance != VK_NULL_HANDLE) vkDestroyInstance(m_instance, nullptr);
}

std::optional<uint32_t> Device::find_memory_type(uint32_t allowed,
                                                 VkMemoryPropertyFlags flags) const {
    for (uint32_t i = 0; i < m_memory.memoryTypeCount; ++i) {
        if ((allowed & (1u << i)) && (m_memory.memoryTypes[i].propertyFlags & flags) == flags) {
            return i;
        }
    }
    return std::nullopt;
}

uint32_t Device::memory_type(uint32_t allowed, VkMemoryPropertyFlags flags) const {
    if (const auto found = find_memory_type(allowed, flags)) return *found;
    throw VulkanError(m_info.name + " has no suitable memory type", VK_ERROR_OUT_OF_DEVICE_MEMORY);
}

void Device::run(const Pipeline& pipeline, const void* push_constants, uint32_t groups_x,
                 uint32_t groups_y, uint32_t groups_z) {
    Submission submission(*this);
    submission.begin();
    submission.dispatch(pipeline, pipeline.descriptor_set(), push_constants,
                        {groups_x, groups_y, groups_z});
    submission.submit();
    submission.wait();
}

void Device::submit(VkCommandBuffer commands, VkFence fence) {
    if (m_submissions_before_loss == 0) m_lost = true;
    if (m_submissions_before_loss > 0) --m_submissions_before_loss;
    if (m_lost) throw VulkanError("submitting work to " + m_info.name, VK_ERROR_DEVICE_LOST);
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &commands;
    const VkResult result = vkQueueSubmit(m_queue, 1, &submit, fence);
    if (result == VK_ERROR_DEVICE_LOST) m_lost = true;
    check(result, "submitting work to " + m_info.name);
}

void Device::wait(VkFence fence) {
    const VkResult result = vkWaitForFences(m_device, 1, &fence, VK_TRUE, UINT64_MAX);
    if (result == VK_ERROR_DEVICE_LOST) m_lost = true;
    check(result, "waiting for " + m_info.name);
}

void Device::wait_idle() const {
    vkDeviceWaitIdle(m_device);
}

void Device::copy(VkBuffer from, size_t from_offset, VkBuffer to, size_t to_offset, size_t bytes) {
    Submission submission(*this);
    submission.begin();
    const VkBufferCopy region{from_offset, to_offset, bytes};
    vkCmdCopyBuffer(submission.commands(), from, to, 1, &region);
    submission.submit();
    submission.wait();
}

// Staging in slices keeps the host-visible memory a large upload needs small.
constexpr size_t kStagingBytes = size_t{16} << 20;

void Device::upload(Buffer& buffer, size_t offset, const void* data, size_t bytes) {
    if (buffer.data() != nullptr) {
        std::memcpy(static_cast<std::byte*>(buffer.data()) + offset, data, bytes);
        return;
    }
    Buffer staging(*this, std::min(bytes, kStagingBytes), Memory::Host);
    for (size_t done = 0; done < bytes; done += kStagingBytes) {
        const size_t slice = std::min(kStagingBytes, bytes - done);
        std::memcpy(staging.data(), static_cast<const std::byte*>(data) + done, slice);
        copy(staging.handle(), 0, buffer.handle(), offset + done, slice);
    }
}

void Device::download(const Buffer& buffer, size_t offset, void* data, size_t bytes) {
    if (buffer.data() != nullptr) {
        std::memcpy(data, static_cast<const std::byte*>(buffer.data()) + offset, bytes);
        return;
    }
    Buffer staging(*this, std::min(bytes, kStagingBytes), Memory::Host);
    for (size_t done = 0; done < bytes; done += kStagingBytes) {
        const size_t slice = std::min(kStagingBytes, bytes - done);
        copy(buffer.handle(), offset + done, staging.handle(), 0, slice);
        std::memcpy(static_cast<std::byte*>(data) + done, staging.data(), slice);
    }
}

Buffer::Buffer(Device& device, size_t bytes, Memory memory)
    : m_device(device.handle()), m_size(bytes) {
    VkBufferCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    // Shaders read storage buffers as 32-bit words: a buffer of packed blocks (Q8_0's are 34
    // bytes) is padded so its last bytes fall inside a readable word.
    create.size = (std::max<size_t>(bytes, 4) + 3) / 4 * 4;
    create.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                   VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(vkCreateBuffer(m_device, &create, nullptr, &m_buffer), "creating a buffer");
    try {
        VkMemoryRequirements requirements{};
        vkGetBufferMemoryRequirements(m_device, m_buffer, &requirements);
        VkMemoryAllocateInfo allocate{};
        allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
        allocate.allocationSize = requirements.size;
        constexpr VkMemoryPropertyFlags kMappable =
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        bool mapped = true;
        if (memory == Memory::Host) {
            allocate.memoryTypeIndex = device.memory_type(requirements.memoryTypeBits, kMappable);
        } else if (const auto both =
                       device.find_memory_type(requirements.memoryTypeBits,
                                               kMappable | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
                   both && !device.staging_only()) {
            allocate.memoryTypeIndex = *both;
        } else {
            allocate.memoryTypeIndex = device.memory_type(requirements.memoryTypeBits,
                                                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
            mapped = false;
        }
        check(vkAllocateMemory(m_device, &allocate, nullptr, &m_memory),
              "allocating " + std::to_string(bytes >> 20) + " MiB of " +
                  (memory == Memory::Host ? "host-visible" : "device") + " memory");
        check(vkBindBufferMemory(m_device, m_buffer, m_memory, 0), "binding buffer memory");
        if (mapped) {
            check(vkMapMemory(m_device, m_memory, 0, VK_WHOLE_SIZE, 0, &m_mapped),
                  "mapping memory");
        }
    } catch (...) {
        if (m_memory != VK_NULL_HANDLE) vkFreeMemory(m_device, m_memory, nullptr);
        vkDestroyBuffer(m_device, m_buffer, nullptr);
        throw;
    }
}

Buffer::~Buffer() {
    if (m_mapped != nullptr) vkUnmapMemory(m_device, m_memory);
    vkFreeMemory(m_device, m_memory, nullptr);
    vkDestroyBuffer(m_device, m_buffer, nullptr);
}

Pipeline::Pipeline(Device& device, std::span<const uint32_t> spirv, uint32_t bindings,
                   uint32_t push_constant_bytes)
    : m_device(device.handle()), m_bindings(bindings), m_push_constant_bytes(push_constant_bytes) {
    try {
        std::vector<VkDescriptorSetLayoutBinding> layout_bindings(bindings);
        for (uint32_t i = 0; i < bindings; ++i) {
            layout_bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                  VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
        }
        VkDescriptorSetLayoutCreateInfo set_layout{};
        set_layout.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
        set_layout.bindingCount = bindings;
        set_layout.pBindings = layout_bindings.data();
        check(vkCreateDescriptorSetLayout(m_device, &set_layout, nullptr, &m_set_layout),
              "creating a descriptor set layout");
        VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_bytes};
        VkPipelineLayoutCreateInfo layout{};
        layout.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
        layout.setLayoutCount = 1;
        layout.pSetLayouts = &m_set_layout;
        layout.pushConstantRangeCount = push_constant_bytes > 0 ? 1 : 0;
        layout.pPushConstantRanges = &range;
        check(vkCreatePipelineLayout(m_device, &layout, nullptr, &m_layout),
              "creating a pipeline layout");
        VkShaderModuleCreateInfo module{};
        module.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
        module.codeSize = spirv.size_bytes();
        module.pCode = spirv.data();
        check(vkCreateShaderModule(m_device, &module, nullptr, &m_module), "loading a shader");
        VkComputePipelineCreateInfo pipeline{};
        pipeline.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
        pipeline.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        pipeline.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        pipeline.stage.module = m_module;
        pipeline.stage.pName = "main";
        pipeline.layout = m_layout;
        check(vkCreateComputePipelines(m_device, device.pipeline_cache(), 1, &pipeline, nullptr,
                                       &m_pipeline),
              "compiling a compute pipeline");
        VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, bindings};
        VkDescriptorPoolCreateInfo pool{};
        pool.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
        pool.maxSets = 1;
        pool.poolSizeCount = 1;
        pool.pPoolSizes = &size;
        check(vkCreateDescriptorPool(m_device, &pool, nullptr, &m_pool),
              "creating a descriptor pool");
        VkDescriptorSetAllocateInfo allocate{};
        allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
        allocate.descriptorPool = m_pool;
        allocate.descriptorSetCount = 1;
        allocate.pSetLayouts = &m_set_layout;
        check(vkAllocateDescriptorSets(m_device, &allocate, &m_set), "allocating descriptors");
    } catch (...) {
        release();
        throw;
    }
}

Pipeline::~Pipeline() {
    release();
}

void Pipeline::release() {
    if (m_pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(m_device, m_pool, nullptr);
    if (m_pipeline != VK_NULL_HANDLE) vkDestroyPipeline(m_device, m_pipeline, nullptr);
    if (m_module != VK_NULL_HANDLE) vkDestroyShaderModule(m_device, m_module, nullptr);
    if (m_layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(m_device, m_layout, nullptr);
    if (m_set_layout != VK_NULL_HANDLE)
        vkDestroyDescriptorSetLayout(m_device, m_set_layout, nullptr);
    m_pool = VK_NULL_HANDLE;
    m_pipeline = VK_NULL_HANDLE;
    m_module = VK_NULL_HANDLE;
    m_layout = VK_NULL_HANDLE;
    m_set_layout = VK_NULL_HANDLE;
}

void Pipeline::bind(Bindings buffers) {
    write_bindings(m_device, m_set, m_bindings, buffers);
}

DescriptorPool::DescriptorPool(Device& device, uint32_t sets, uint32_t descriptors)
    : m_device(device.handle()) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(descriptors, 1u)};
    VkDescriptorPoolCreateInfo pool{};
    pool.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    pool.maxSets = std::max(sets, 1u);
    pool.poolSizeCount = 1;
    pool.pPoolSizes = &size;
    check(vkCreateDescriptorPool(m_device, &pool, nullptr, &m_pool), "creating a descriptor pool");
}

DescriptorPool::~DescriptorPool() {
    vkDestroyDescriptorPool(m_device, m_pool, nullptr);
}

VkDescriptorSet DescriptorPool::allocate(const Pipeline& pipeline, Bindings buffers) {
    const VkDescriptorSetLayout layout = pipeline.set_layout();
    VkDescriptorSetAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    allocate.descriptorPool = m_pool;
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    check(vkAllocateDescriptorSets(m_device, &allocate, &set), "allocating descriptors");
    write_bindings(m_device, set, pipeline.bindings(), buffers);
    return set;
}

}  // namespace hearth::vulkan
