// What the shader tests (shaders_*_test.cpp, one executable per family of shaders) share: one
// real Vulkan device per executable (Mesa's lavapipe here), random inputs, buffers filled from
// them, and a shader run once on them. Each file's ShaderTest builds on this with the checks of
// its own family, so every test keeps its name, ShaderTest.*.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "engine/compute/vulkan/device.h"

namespace hearth::vulkan {

inline uint32_t groups_of(size_t count, uint32_t size = 64) {
    return static_cast<uint32_t>((count + size - 1) / size);
}

class ShaderFixture : public testing::Test {
protected:
    static void SetUpTestSuite() { s_device = Device::open(std::nullopt, true).release(); }
    static void TearDownTestSuite() { delete s_device; }

    std::vector<float> random_floats(size_t count, float scale = 1.0f) {
        std::uniform_real_distribution<float> value(-scale, scale);
        std::vector<float> values(count);
        for (auto& v : values) v = value(m_random);
        return values;
    }
    std::unique_ptr<Buffer> buffer_with(const void* data, size_t bytes) {
        auto buffer = std::make_unique<Buffer>(*s_device, bytes);
        if (data != nullptr) std::memcpy(buffer->data(), data, bytes);
        return buffer;
    }
    template <typename T>
    std::unique_ptr<Buffer> buffer_with(const std::vector<T>& values) {
        return buffer_with(values.data(), values.size() * sizeof(T));
    }
    template <typename Push>
    void run(std::span<const uint32_t> spirv, std::vector<const Buffer*> buffers, const Push& push,
             uint32_t groups) {
        Pipeline pipeline(*s_device, "shader under test", spirv,
                          static_cast<uint32_t>(buffers.size()), sizeof(Push));
        pipeline.bind(buffers);
        s_device->run(pipeline, push, groups);
    }
    static std::vector<float> read(const Buffer& buffer, size_t count) {
        const auto* data = static_cast<const float*>(buffer.data());
        return {data, data + count};
    }

    static inline Device* s_device = nullptr;
    std::mt19937 m_random{11};
};

}  // namespace hearth::vulkan
