// The Vulkan instance: the loader's connection to the installed drivers, for discovery and for
// the device opened through it. Destroyed with its owner, after everything made from it.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>
#include <type_traits>
#include <vector>

namespace hearth::vulkan {

class Instance final {
public:
    // Throws VulkanError when no Vulkan driver can be started.
    Instance();

    VkInstance handle() const { return m_instance.get(); }
    // Every device the drivers offer, in their enumeration order.
    std::vector<VkPhysicalDevice> physical_devices() const;

private:
    struct Destroy {
        void operator()(VkInstance instance) const { vkDestroyInstance(instance, nullptr); }
    };
    // VkInstance is a dispatchable handle, a pointer on every platform.
    std::unique_ptr<std::remove_pointer_t<VkInstance>, Destroy> m_instance;
};

}  // namespace hearth::vulkan
