#include "engine/compute/vulkan/instance.h"

#include "engine/compute/vulkan/vulkan_error.h"

namespace hearth::vulkan {

Instance::Instance() {
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
    m_instance.reset(instance);
}

std::vector<VkPhysicalDevice> Instance::physical_devices() const {
    uint32_t count = 0;
    check(vkEnumeratePhysicalDevices(handle(), &count, nullptr), "listing Vulkan devices");
    std::vector<VkPhysicalDevice> devices(count);
    check(vkEnumeratePhysicalDevices(handle(), &count, devices.data()), "listing Vulkan devices");
    return devices;
}

}  // namespace hearth::vulkan
