#include "engine/compute/vulkan/self_test.h"

#include <cmath>
#include <exception>

#include "engine/compute/cpu_backend.h"
#include "engine/compute/vulkan/device.h"
#include "engine/compute/vulkan/vulkan_backend.h"
#include "engine/generation/greedy_picker.h"
#include "engine/model/model.h"

namespace hearth::vulkan {
namespace {

constexpr int kPromptTokens = 40;
constexpr int kSteps = 24;

}  // namespace

SelfTestResult self_test_device(std::optional<uint32_t> index, bool allow_cpu_device,
                                const std::filesystem::path& model_path, double tolerance) {
    SelfTestResult result;
    try {
        const auto model = Model::load(model_path);
        VulkanBackend device(*model, {.device = index, .allow_cpu_device = allow_cpu_device});
        result.device = device.device().info().name;
        CpuBackend cpu(*model, {.threads = 1});
        const int vocab = model->config().vocab_size;
        std::vector<int32_t> prompt{1};
        for (int i = 1; i < kPromptTokens; ++i) prompt.push_back(3 + (i * 131) % (vocab - 3));
        auto on_device = device.create_sequence(kPromptTokens + kSteps + 1);
        auto on_cpu = cpu.create_sequence(kPromptTokens + kSteps + 1);
        const auto x = device.forward(prompt, *on_device, LogitRows::All);
        const auto y = cpu.forward(prompt, *on_cpu, LogitRows::All);
        for (size_t i = 0; i < x.size(); ++i) {
            const double difference = std::fabs(static_cast<double>(x[i]) - y[i]);
            if (!(difference <= result.max_difference)) result.max_difference = difference;
        }
        result.rows_compared = kPromptTokens;
        if (!(result.max_difference <= tolerance)) {
            result.reason = "its results differ from the CPU's by " +
                            std::to_string(result.max_difference) + " (at most " +
                            std::to_string(tolerance) + " is expected)";
            return result;
        }
        const std::span last(y.data() + (kPromptTokens - 1) * vocab, static_cast<size_t>(vocab));
        GreedyPicker on_gpu, on_host;
        device.decode(*on_device, argmax(last), kSteps, on_gpu);
        cpu.decode(*on_cpu, argmax(last), kSteps, on_host);
        if (on_gpu.tokens() != on_host.tokens()) {
            result.reason = "its greedy tokens differ from the CPU's";
            return result;
        }
        result.passed = true;
    } catch (const std::exception& error) {
        result.reason = error.what();
    }
    return result;
}

}  // namespace hearth::vulkan
