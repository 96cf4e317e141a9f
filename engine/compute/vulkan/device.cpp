#include "engine/compute/vulkan/device.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/compute/vulkan/submission.h"

namespace hearth::vulkan {
namespace {

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

// The index of the device to open: `index` when it exists, else the most preferred one.
uint32_t choose(const std::vector<VkPhysicalDevice>& devices, std::optional<uint32_t> index,
                bool allow_cpu) {
    if (index && *index >= devices.size()) {
        throw VulkanError("device " + std::to_string(*index) + " does not exist (there are " +
                              std::to_string(devices.size()) + ")",
                          VK_ERROR_INITIALIZATION_FAILED);
    }
    if (index) return *index;
    std::optional<uint32_t> chosen;
    int best = 5;
    for (uint32_t i = 0; i < devices.size(); ++i) {
        const int rank = preference(describe(devices[i], i).type);
        if ((rank < 3 || allow_cpu) && rank < best) {
            best = rank;
            chosen = i;
        }
    }
    if (chosen) return *chosen;
    throw VulkanError(devices.empty() ? "no Vulkan device"
                                      : "no GPU among the Vulkan devices (only CPU "
                                        "implementations, which are slower than Hearth's "
                                        "own CPU backend)",
                      VK_ERROR_INITIALIZATION_FAILED);
}

uint32_t compute_queue_family(VkPhysicalDevice physical, const std::string& name) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
    const auto compute = std::find_if(families.begin(), families.end(), [](const auto& family) {
        return (family.queueFlags & VK_QUEUE_COMPUTE_BIT) != 0;
    });
    if (compute == families.end()) {
        throw VulkanError(name + " has no compute queue", VK_ERROR_FEATURE_NOT_PRESENT);
    }
    return static_cast<uint32_t>(compute - families.begin());
}

VkDevice create_device(VkPhysicalDevice physical, uint32_t queue_family) {
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{};
    queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue.queueFamilyIndex = queue_family;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    VkDeviceCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    create.queueCreateInfoCount = 1;
    create.pQueueCreateInfos = &queue;
    VkDevice device = VK_NULL_HANDLE;
    check(vkCreateDevice(physical, &create, nullptr, &device), "opening the device");
    return device;
}

VkCommandPool create_command_pool(VkDevice device, uint32_t queue_family) {
    VkCommandPoolCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    create.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    create.queueFamilyIndex = queue_family;
    VkCommandPool pool = VK_NULL_HANDLE;
    check(vkCreateCommandPool(device, &create, nullptr, &pool), "creating a command pool");
    return pool;
}

// A pipeline cache holding what `file` saved, if anything. The driver checks the cache header
// (vendor, device, driver UUID) and ignores data that is not its own, so a stale file costs a
// compile, never a wrong pipeline.
VkPipelineCache create_pipeline_cache(VkDevice device, const std::filesystem::path& file) {
    std::vector<char> saved;
    if (!file.empty()) {
        std::ifstream stream(file, std::ios::binary);
        saved.assign(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
    }
    VkPipelineCacheCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
    create.initialDataSize = saved.size();
    create.pInitialData = saved.empty() ? nullptr : saved.data();
    VkPipelineCache cache = VK_NULL_HANDLE;
    if (vkCreatePipelineCache(device, &create, nullptr, &cache) == VK_SUCCESS) return cache;
    create.initialDataSize = 0;  // a damaged file: start empty
    create.pInitialData = nullptr;
    check(vkCreatePipelineCache(device, &create, nullptr, &cache), "creating the pipeline cache");
    return cache;
}

}  // namespace

std::unique_ptr<Device> Device::open(std::optional<uint32_t> index, bool allow_cpu,
                                     std::filesystem::path pipeline_cache) {
    Instance instance;
    const auto devices = instance.physical_devices();
    const uint32_t chosen = choose(devices, index, allow_cpu);
    // A private constructor: make_unique cannot call it.
    return std::unique_ptr<Device>(
        new Device(std::move(instance), devices[chosen], chosen, std::move(pipeline_cache)));
}

Device::Device(Instance instance, VkPhysicalDevice physical, uint32_t index,
               std::filesystem::path pipeline_cache_file)
    : m_instance(std::move(instance)),
      m_physical(physical),
      m_info(describe(physical, index)),
      m_queue_family(compute_queue_family(physical, m_info.name)),
      m_device(create_device(physical, m_queue_family)),
      m_command_pool(handle(), create_command_pool(handle(), m_queue_family)),
      m_pipeline_cache(handle(), create_pipeline_cache(handle(), pipeline_cache_file)),
      m_pipeline_cache_file(std::move(pipeline_cache_file)) {
    vkGetDeviceQueue(handle(), m_queue_family, 0, &m_queue);
    vkGetPhysicalDeviceMemoryProperties(m_physical, &m_memory);
}

void Device::WaitAndDestroy::operator()(VkDevice device) const {
    vkDeviceWaitIdle(device);
    vkDestroyDevice(device, nullptr);
}

size_t Device::pipeline_cache_bytes() const {
    size_t size = 0;
    vkGetPipelineCacheData(handle(), pipeline_cache(), &size, nullptr);
    return size;
}

void Device::save_pipeline_cache() const {
    if (m_pipeline_cache_file.empty()) return;
    size_t size = pipeline_cache_bytes();
    std::vector<char> data(size);
    check(vkGetPipelineCacheData(handle(), pipeline_cache(), &size, data.data()),
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

void Device::run(const Pipeline& pipeline, PushConstants push_constants, uint32_t groups_x,
                 uint32_t groups_y, uint32_t groups_z) {
    Submission submission(*this);
    submission.begin();
    submission.dispatch(pipeline, pipeline.descriptor_set(), push_constants,
                        {groups_x, groups_y, groups_z});
    submission.submit();
    submission.wait();
}

void Device::submit(VkCommandBuffer commands, VkFence fence) {
    if (m_submissions_before_loss == 0 && m_injected_loss == Loss::WhileRunning) {
        m_fence_to_lose = fence;
        m_submissions_before_loss = -1;
    }
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
    VkResult result = vkWaitForFences(handle(), 1, &fence, VK_TRUE, UINT64_MAX);
    if (fence == m_fence_to_lose) {  // an injected loss while this submission ran
        m_fence_to_lose = VK_NULL_HANDLE;
        result = VK_ERROR_DEVICE_LOST;
    }
    if (result == VK_ERROR_DEVICE_LOST) m_lost = true;
    check(result, "waiting for " + m_info.name);
}

void Device::wait_idle() const {
    vkDeviceWaitIdle(handle());
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

}  // namespace hearth::vulkan
