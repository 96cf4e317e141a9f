// The Vulkan device layer on a real device: Mesa's lavapipe here (a CPU implementation, allowed
// explicitly), a GPU wherever one exists.
#include "engine/vulkan/device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "shaders/matvec_f32_spv.h"
#include "tests/support/temp_files.h"

namespace hearth::vulkan {
namespace {

TEST(VulkanDevice, ListsDevicesWithTheirLimits) {
    const auto devices = list_devices();
    ASSERT_FALSE(devices.empty());
    for (const auto& device : devices) {
        EXPECT_FALSE(device.name.empty());
        EXPECT_GT(device.max_storage_buffer_range, 0u);
        EXPECT_GT(device.subgroup_size, 0u);
        EXPECT_FALSE(device.type_name().empty());
    }
}

// Selection prefers GPUs and takes a CPU implementation only when asked; an explicit index
// picks exactly that device, and one past the end is refused by number.
TEST(VulkanDevice, SelectionPrefersGpusAndTakesCpusOnlyWhenAsked) {
    const auto devices = list_devices();
    const bool gpu = std::any_of(devices.begin(), devices.end(), [](const DeviceInfo& device) {
        return device.type != VK_PHYSICAL_DEVICE_TYPE_CPU;
    });
    if (gpu) {
        EXPECT_NE(Device::open()->info().type, VK_PHYSICAL_DEVICE_TYPE_CPU);
        EXPECT_NE(Device::open(std::nullopt, true)->info().type, VK_PHYSICAL_DEVICE_TYPE_CPU);
    } else {
        try {
            Device::open();
            ADD_FAILURE() << "a CPU implementation was chosen without being asked for";
        } catch (const VulkanError& error) {
            EXPECT_NE(std::string(error.what()).find("no GPU"), std::string::npos) << error.what();
        }
        EXPECT_EQ(Device::open(std::nullopt, true)->info().type, VK_PHYSICAL_DEVICE_TYPE_CPU);
    }
    const uint32_t last = static_cast<uint32_t>(devices.size() - 1);
    EXPECT_EQ(Device::open(last)->info().name, devices.back().name);
    try {
        Device::open(last + 1);
        ADD_FAILURE() << "a device past the end was opened";
    } catch (const VulkanError& error) {
        EXPECT_NE(std::string(error.what()).find("does not exist"), std::string::npos);
    }
}

// The matrix-vector shader against a double-precision reference, on awkward sizes (rows and
// columns that are not multiples of the workgroup, a single element, more columns than rows).
TEST(VulkanDevice, MatvecShaderMatchesTheCpu) {
    const auto device = Device::open(std::nullopt, true);
    Pipeline pipeline(*device, std::span(matvec_f32_spv, std::size(matvec_f32_spv)), 3, 8);
    std::mt19937 random(5);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (const auto& [rows, columns] :
         {std::pair{1u, 1u}, {37u, 53u}, {300u, 1000u}, {5u, 4097u}}) {
        Buffer weights(*device, sizeof(float) * rows * columns);
        Buffer input(*device, sizeof(float) * columns);
        Buffer output(*device, sizeof(float) * rows);
        auto* w = static_cast<float*>(weights.data());
        auto* x = static_cast<float*>(input.data());
        for (uint32_t i = 0; i < rows * columns; ++i) w[i] = value(random);
        for (uint32_t i = 0; i < columns; ++i) x[i] = value(random);
        Buffer* buffers[] = {&weights, &input, &output};
        pipeline.bind(buffers);
        const uint32_t shape[] = {rows, columns};
        device->run(pipeline, shape, rows);
        const auto* y = static_cast<const float*>(output.data());
        for (uint32_t r = 0; r < rows; ++r) {
            double expected = 0;
            for (uint32_t c = 0; c < columns; ++c) expected += double(w[r * columns + c]) * x[c];
            EXPECT_NEAR(y[r], expected, 1e-4 * std::sqrt(double(columns)))
                << rows << "x" << columns;
        }
    }
}

// Compiled pipelines are kept in a file: the second device starts with them, and a damaged file
// is ignored rather than trusted. (Mesa 22's lavapipe keeps only the 32-byte header in
// VkPipelineCache, compiling in 0.8 ms either way; on GPU drivers the file carries the binaries.)
TEST(VulkanDevice, ThePipelineCacheIsSavedAndReused) {
    const test::TempDirectory directory;
    const auto file = directory.path() / "pipelines.cache";
    const std::span spirv(matvec_f32_spv, std::size(matvec_f32_spv));
    size_t compiled_bytes = 0;
    {
        const auto device = Device::open(std::nullopt, true, file);
        const size_t empty = device->pipeline_cache_bytes();
        Pipeline pipeline(*device, spirv, 3, 8);
        compiled_bytes = device->pipeline_cache_bytes();
        EXPECT_GE(compiled_bytes, empty);
        device->save_pipeline_cache();
    }
    ASSERT_TRUE(std::filesystem::exists(file));
    EXPECT_EQ(std::filesystem::file_size(file), compiled_bytes);
    {
        const auto device = Device::open(std::nullopt, true, file);
        EXPECT_EQ(device->pipeline_cache_bytes(), compiled_bytes);  // loaded, nothing new yet
        Pipeline pipeline(*device, spirv, 3, 8);
        EXPECT_EQ(device->pipeline_cache_bytes(), compiled_bytes);  // nothing compiled anew
    }
    std::ofstream(file, std::ios::binary | std::ios::trunc) << "not a pipeline cache";
    const auto device = Device::open(std::nullopt, true, file);
    Pipeline pipeline(*device, spirv, 3, 8);  // still works
}

// Without a driver the error says so (the loader finds no driver manifest).
TEST(VulkanDevice, AMissingDriverIsAClearError) {
    const char* saved = std::getenv("VK_ICD_FILENAMES");
    const std::string previous = saved ? saved : "";
    setenv("VK_ICD_FILENAMES", "/nonexistent/hearth_icd.json", 1);
    try {
        const auto devices = list_devices();
        EXPECT_TRUE(devices.empty());
        EXPECT_THROW(Device::open(std::nullopt, true), VulkanError);
    } catch (const VulkanError& error) {
        EXPECT_NE(std::string(error.what()).find("Vulkan"), std::string::npos);
    }
    if (saved) {
        setenv("VK_ICD_FILENAMES", previous.c_str(), 1);
    } else {
        unsetenv("VK_ICD_FILENAMES");
    }
}

}  // namespace
}  // namespace hearth::vulkan
