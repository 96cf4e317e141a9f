#include "engine/compute/vulkan/vulkan_error.h"

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
        case VK_ERROR_VALIDATION_FAILED_EXT:
            return "Hearth used Vulkan wrongly (a bug: please report it)";
        default:
            return "VkResult " + std::to_string(static_cast<int>(result));
    }
}

}  // namespace

VulkanError::VulkanError(const std::string& what, VkResult result)
    : std::runtime_error("Vulkan: " + what + ": " + result_name(result)), m_result(result) {}

void check(VkResult result, const std::string& what) {
    if (result != VK_SUCCESS) throw VulkanError(what, result);
}

}  // namespace hearth::vulkan
