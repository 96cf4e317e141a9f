#include "engine/compute/vulkan/device_info.h"

#include "engine/compute/vulkan/instance.h"

namespace hearth::vulkan {

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

std::vector<DeviceInfo> list_devices() {
    const Instance instance;
    const auto devices = instance.physical_devices();
    std::vector<DeviceInfo> infos;
    for (uint32_t i = 0; i < devices.size(); ++i) infos.push_back(describe(devices[i], i));
    return infos;
}

}  // namespace hearth::vulkan
