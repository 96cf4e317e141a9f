// The one error the Vulkan layer throws: what was being done, and the VkResult that said no.
#pragma once

#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>

namespace hearth::vulkan {

// A failed Vulkan call, naming what was being done and the VkResult.
class VulkanError : public std::runtime_error {
public:
    VulkanError(const std::string& what, VkResult result);
    VkResult result() const { return m_result; }

private:
    VkResult m_result;
};

// Throws VulkanError unless `result` is VK_SUCCESS; `what` says what was being done.
void check(VkResult result, const std::string& what);

}  // namespace hearth::vulkan
