// Ownership of one Vulkan object made from a VkDevice: destroyed with `Destroy` (the matching
// vkDestroy* or vkFree* call) when its owner goes, so a class that holds several states their
// destruction order by the order it declares them (last declared, first destroyed).
#pragma once

#include <vulkan/vulkan.h>

#include <utility>

namespace hearth::vulkan {

template <typename Handle, auto Destroy>
class DeviceObject final {
public:
    DeviceObject() = default;
    DeviceObject(VkDevice device, Handle handle) : m_device(device), m_handle(handle) {}
    ~DeviceObject() { reset(); }
    DeviceObject(DeviceObject&& other) noexcept
        : m_device(other.m_device), m_handle(std::exchange(other.m_handle, VK_NULL_HANDLE)) {}
    DeviceObject& operator=(DeviceObject&& other) noexcept {
        if (this != &other) {
            reset();
            m_device = other.m_device;
            m_handle = std::exchange(other.m_handle, VK_NULL_HANDLE);
        }
        return *this;
    }
    DeviceObject(const DeviceObject&) = delete;
    DeviceObject& operator=(const DeviceObject&) = delete;

    Handle get() const { return m_handle; }

private:
    void reset() {
        if (m_handle != VK_NULL_HANDLE) Destroy(m_device, m_handle, nullptr);
        m_handle = VK_NULL_HANDLE;
    }

    VkDevice m_device = VK_NULL_HANDLE;
    Handle m_handle = VK_NULL_HANDLE;
};

}  // namespace hearth::vulkan
