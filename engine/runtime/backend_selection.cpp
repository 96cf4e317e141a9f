#include "engine/runtime/backend_selection.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "engine/compute/backend_factory.h"
#include "engine/compute/vulkan/device.h"
#include "engine/compute/vulkan/self_test.h"
#include "engine/compute/vulkan/vulkan_backend.h"
#include "engine/model/cpu_load_options.h"
#include "engine/model/load_error.h"
#include "engine/runtime/turn_time.h"

namespace hearth {
namespace {

BackendSelection on_cpu(const BackendPreference& preference, const Model& model,
                        std::optional<Notice> notice = std::nullopt) {
    return {BackendSelector::cpu(preference, model), false, std::move(notice)};
}

// Automatic keeps a GPU that is within a tenth of the CPU's time for a typical turn: then it
// leaves the cores to the rest of the machine. Measured, not assumed: the shaders that win on
// one GPU lose on another, and a many-core CPU outruns some GPUs (the prompt especially).
// Cancelling the load cancels the timing: `progress` is still asked whether to go on, with the
// upload it reports complete. Throws LoadCancelled.
std::optional<Notice> slower_than_cpu(Backend& device, Backend& cpu, const Model& model,
                                      const BackendSelector::UploadProgress& progress) {
    std::atomic<bool> cancelled{false};
    const SpeedControl control{.cancel = &cancelled, .progress = [&](int, int) {
                                   if (progress && !progress(1, 1)) cancelled = true;
                               }};
    const int vocab = model.config().vocab_size;
    double device_seconds = 0, cpu_seconds = 0;
    try {
        device_seconds = typical_turn_seconds(device, vocab, true, control);
        cpu_seconds = typical_turn_seconds(cpu, vocab, false, control);
    } catch (const SpeedTestCancelled&) {
        throw LoadCancelled("loading was cancelled while the GPU was timed against the CPU");
    }
    spdlog::info("A {}-token prompt and a {}-token answer: {:.2f} s on {}, {:.2f} s on {}",
                 kTypicalTurnPrompt, kTypicalTurnAnswer, device_seconds, device.name(), cpu_seconds,
                 cpu.name());
    if (cpu_seconds >= 0.9 * device_seconds) return std::nullopt;
    return Notice{.kind = NoticeKind::GpuNotUsed,
                  .problem = GpuProblem::SlowerThanCpu,
                  .device = device.name(),
                  .device_seconds = device_seconds,
                  .cpu_seconds = cpu_seconds};
}

}  // namespace

bool has_gpu() {
    std::vector<vulkan::DeviceInfo> devices;
    try {
        devices = vulkan::list_devices();
    } catch (const vulkan::VulkanError&) {  // no driver installed: the ordinary CPU-only machine
        return false;
    }
    return std::any_of(devices.begin(), devices.end(), [](const vulkan::DeviceInfo& device) {
        return device.type != VK_PHYSICAL_DEVICE_TYPE_CPU;
    });
}

BackendSelector::BackendSelector(BackendSelectorOptions options) : m_options(std::move(options)) {}

bool BackendSelector::machine_has_gpu() {
    if (!m_has_gpu) m_has_gpu = has_gpu();
    return *m_has_gpu;
}

bool BackendSelector::certainly_cpu(const BackendPreference& preference) {
    using Kind = BackendPreference::Kind;
    if (!preference.unknown_setting.empty() || preference.kind == Kind::Cpu) return true;
    return preference.kind == Kind::Automatic && !m_options.cpu_devices_as_gpus &&
           !machine_has_gpu();
}

MapOptions BackendSelector::load_options(const BackendPreference& preference, MapOptions options) {
    if (!certainly_cpu(preference)) return options;
    auto isa = kernels::best_isa();
    if (!preference.isa.empty()) {
        try {
            isa = kernels::parse_isa(preference.isa);
        } catch (const std::invalid_argument&) {
            return options;  // the CPU backend's creation names the problem
        }
    }
    return cpu_load_options(std::move(options), isa);
}

std::unique_ptr<Backend> BackendSelector::cpu(const BackendPreference& preference,
                                              const Model& model) {
    return make_backend({.name = "cpu",
                         .threads = preference.cpu_threads(),
                         .isa = preference.isa,
                         .kv_cache = preference.kv_cache},
                        model);
}

BackendSelection BackendSelector::select(const BackendPreference& preference, const Model& model,
                                         const UploadProgress& progress) {
    using Kind = BackendPreference::Kind;
    if (!preference.unknown_setting.empty()) {
        return on_cpu(preference, model,
                      Notice{.kind = NoticeKind::GpuNotUsed,
                             .problem = GpuProblem::UnknownSetting,
                             .detail = preference.unknown_setting});
    }
    if (preference.kind == Kind::Reference) return {make_backend({.name = "reference"}, model)};
    if (certainly_cpu(preference)) return on_cpu(preference, model);
    const bool automatic = preference.kind == Kind::Automatic;
    const bool cpu_devices = !automatic || m_options.cpu_devices_as_gpus;
    const bool strict = !automatic && !preference.fall_back_to_cpu;
    if (auto failure = self_test_failure(preference.device, cpu_devices)) {
        if (strict)
            throw std::runtime_error(failure->device.empty()
                                         ? failure->detail
                                         : failure->device + ": " + failure->detail);
        return on_cpu(preference, model, std::move(failure));
    }
    try {
        auto device = std::make_unique<VulkanBackend>(
            model, VulkanBackendOptions{.device = preference.device,
                                        .allow_cpu_device = cpu_devices,
                                        .pipeline_cache = m_options.pipeline_cache,
                                        .kv_cache = preference.kv_cache,
                                        .progress = progress});
        if (automatic) {
            auto cpu_backend = cpu(preference, model);
            if (auto slower = slower_than_cpu(*device, *cpu_backend, model, progress))
                return {std::move(cpu_backend), false, std::move(slower)};
        }
        return {std::move(device), true};
    } catch (const LoadCancelled&) {
        throw;
    } catch (const std::exception& error) {
        if (strict) throw;
        spdlog::info("Vulkan backend not used: {}", error.what());
        return on_cpu(preference, model,
                      Notice{.kind = NoticeKind::GpuNotUsed,
                             .problem = GpuProblem::CannotRunModel,
                             .detail = error.what()});
    }
}

std::optional<Notice> BackendSelector::self_test_failure(std::optional<uint32_t> index,
                                                         bool allow_cpu_device) {
    const std::string key = index ? std::to_string(*index) : "best";
    if (const auto found = m_self_tests.find(key); found != m_self_tests.end())
        return found->second;
    std::optional<Notice> failure;
    if (m_options.self_test_model.empty() || !std::filesystem::exists(m_options.self_test_model)) {
        spdlog::warn("GPU self-test skipped: no model to check against");
    } else {
        const auto result =
            vulkan::self_test_device(index, allow_cpu_device, m_options.self_test_model);
        if (!result.passed) {
            failure = Notice{.kind = NoticeKind::GpuNotUsed,
                             .problem = GpuProblem::FailedSelfTest,
                             .device = result.device,
                             .detail = result.reason};
        }
    }
    return m_self_tests[key] = failure;
}

}  // namespace hearth
