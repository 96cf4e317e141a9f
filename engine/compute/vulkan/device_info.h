// Device discovery: what each Vulkan device the drivers offer can do, as the backend's choices
// (shader variants, tensor splitting, device selection) need to know it.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hearth::vulkan {

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

// What `device`, number `index` in the enumeration, offers.
DeviceInfo describe(VkPhysicalDevice device, uint32_t index);

// Every Vulkan device the installed drivers offer. Throws VulkanError when there is no Vulkan
// driver at all.
std::vector<DeviceInfo> list_devices();

}  // namespace hearth::vulkan
