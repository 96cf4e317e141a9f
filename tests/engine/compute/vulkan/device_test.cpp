// The Vulkan device layer on a real device: Mesa's lavapipe here (a CPU implementation, allowed
// explicitly), a GPU wherever one exists.
#include "engine/compute/vulkan/device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "shaders/matmul_shared_f32_spv.h"
#include "tests/support/temp_files.h"

namespace hearth::vulkan {
namespace {

std::span<const uint32_t> spirv() {
    return {matmul_shared_f32_spv, std::size(matmul_shared_f32_spv)};
}

// The product shader on four small buffers, ready to run: a 28-byte push-constant block.
struct BoundPipeline {
    explicit BoundPipeline(Device& device)
        : pipeline(device, "matmul f32", spirv(), 4, sizeof(uint32_t) * 7),
          a(device, 64),
          b(device, 64),
          c(device, 64),
          d(device, 64) {
        const Buffer* buffers[] = {&a, &b, &c, &d};
        pipeline.bind(buffers);
    }

    Pipeline pipeline;
    Buffer a, b, c, d;
};

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

// Device memory the host cannot map (a discrete GPU's; forced here) is filled and read back
// through staging buffers, in slices when larger than one; host memory is mapped.
TEST(VulkanDevice, UploadsAndDownloadsThroughStaging) {
    const auto device = Device::open(std::nullopt, true);
    device->set_staging_only(true);
    const size_t bytes = (size_t{40} << 20) + 6;  // three staging slices, not whole words
    std::vector<uint8_t> data(bytes);
    std::mt19937 random(5);
    for (auto& byte : data) byte = static_cast<uint8_t>(random());
    Buffer on_device(*device, bytes, Memory::Device);
    EXPECT_EQ(on_device.data(), nullptr);
    device->upload(on_device, 0, data.data(), bytes);
    std::vector<uint8_t> back(bytes);
    device->download(on_device, 0, back.data(), bytes);
    EXPECT_EQ(back, data);
    device->download(on_device, 1000, back.data(), 10);
    EXPECT_TRUE(std::equal(back.begin(), back.begin() + 10, data.begin() + 1000));
    Buffer on_host(*device, 64, Memory::Host);
    EXPECT_NE(on_host.data(), nullptr);
}

// A submission that fails as a lost device does names the device and the loss; the device
// stays lost, as a real one does.
TEST(VulkanDevice, AnInjectedDeviceLossFailsEveryLaterSubmission) {
    const auto device = Device::open(std::nullopt, true);
    const BoundPipeline bound(*device);
    const Pipeline& pipeline = bound.pipeline;
    const uint32_t push[7] = {1, 1, 1, 0, 0, 1, 0};
    device->run(pipeline, push, 1);
    device->inject_device_loss_after(1);
    device->run(pipeline, push, 1);
    for (int i = 0; i < 2; ++i) {
        try {
            device->run(pipeline, push, 1);
            FAIL() << "no error";
        } catch (const VulkanError& error) {
            EXPECT_EQ(error.result(), VK_ERROR_DEVICE_LOST);
            EXPECT_NE(std::string(error.what()).find(device->info().name), std::string::npos);
        }
    }
}

// A loss while running: the submission is queued and runs, its wait reports the loss, and the
// device refuses everything after it.
TEST(VulkanDevice, ADeviceLostWhileASubmissionRunsFailsItsWaitAndEveryLaterSubmission) {
    const auto device = Device::open(std::nullopt, true);
    const BoundPipeline bound(*device);
    const uint32_t push[7] = {1, 1, 1, 0, 0, 1, 0};
    device->inject_device_loss_after(0, Device::Loss::WhileRunning);
    try {
        device->run(bound.pipeline, push, 1);
        FAIL() << "no error";
    } catch (const VulkanError& error) {
        EXPECT_EQ(error.result(), VK_ERROR_DEVICE_LOST);
        EXPECT_NE(std::string(error.what()).find("waiting for"), std::string::npos) << error.what();
    }
    EXPECT_THROW(device->run(bound.pipeline, push, 1), VulkanError);
}

// Push constants carry their size: a block that is not the size the pipeline's shader declares
// is refused before anything is recorded, with an error that names the pipeline.
TEST(VulkanDevice, PushConstantsOfTheWrongSizeAreRefused) {
    const auto device = Device::open(std::nullopt, true);
    const BoundPipeline bound(*device);
    const Pipeline& pipeline = bound.pipeline;
    const uint32_t short_block[6] = {1, 1, 1, 0, 0, 1};
    try {
        device->run(pipeline, short_block, 1);
        FAIL() << "a 24-byte block was accepted for a 28-byte one";
    } catch (const VulkanError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("matmul f32"), std::string::npos) << message;
        EXPECT_NE(message.find("24 bytes"), std::string::npos) << message;
        EXPECT_NE(message.find("28"), std::string::npos) << message;
    }
    const uint32_t block[7] = {1, 1, 1, 0, 0, 1, 0};
    device->run(pipeline, block, 1);  // the right size still runs
}

// Compiled pipelines are kept in a file: the second device starts with them, and a damaged file
// is ignored rather than trusted. (Mesa 22's lavapipe keeps only the 32-byte header in
// VkPipelineCache, compiling in 0.8 ms either way; on GPU drivers the file carries the binaries.)
TEST(VulkanDevice, ThePipelineCacheIsSavedAndReused) {
    const test::TempDirectory directory;
    const auto file = directory.path() / "pipelines.cache";
    size_t compiled_bytes = 0;
    {
        const auto device = Device::open(std::nullopt, true, file);
        const size_t empty = device->pipeline_cache_bytes();
        Pipeline pipeline(*device, "matmul f32", spirv(), 4, 28);
        compiled_bytes = device->pipeline_cache_bytes();
        EXPECT_GE(compiled_bytes, empty);
        device->save_pipeline_cache();
    }
    ASSERT_TRUE(std::filesystem::exists(file));
    EXPECT_EQ(std::filesystem::file_size(file), compiled_bytes);
    {
        const auto device = Device::open(std::nullopt, true, file);
        EXPECT_EQ(device->pipeline_cache_bytes(), compiled_bytes);  // loaded, nothing new yet
        Pipeline pipeline(*device, "matmul f32", spirv(), 4, 28);
        EXPECT_EQ(device->pipeline_cache_bytes(), compiled_bytes);  // nothing compiled anew
    }
    std::ofstream(file, std::ios::binary | std::ios::trunc) << "not a pipeline cache";
    const auto device = Device::open(std::nullopt, true, file);
    Pipeline pipeline(*device, "matmul f32", spirv(), 4, 28);  // still works
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
