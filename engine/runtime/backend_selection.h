// Turns a BackendPreference into a running backend for a model: "automatic" takes a GPU only
// when one passes the start-up self-test against the CPU and runs the model faster than the CPU
// backend, and any GPU that cannot be used leaves the model on the CPU with a notice saying why.
// Every front end goes through here.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/compute/backend.h"
#include "engine/generation/notice.h"
#include "engine/model/model.h"
#include "engine/runtime/backend_preference.h"

namespace hearth {

struct BackendSelection {
    std::unique_ptr<Backend> backend;
    bool on_device = false;        // a Vulkan backend
    std::optional<Notice> notice;  // why it is not the backend asked for
};

struct BackendSelectorOptions {
    // The small model a GPU must run as the CPU does before it is trusted (the bundled one);
    // empty or missing: no check.
    std::filesystem::path self_test_model;
    std::filesystem::path pipeline_cache;  // compiled Vulkan pipelines kept between runs
    // Automatic treats CPU implementations such as lavapipe as it treats GPUs (for tests: the
    // self-test and the speed comparison then run for real on a machine without a GPU).
    bool cpu_devices_as_gpus = false;
};

class BackendSelector final {
public:
    using UploadProgress = std::function<bool(size_t done, size_t total)>;  // false cancels

    explicit BackendSelector(BackendSelectorOptions options);

    // Never fails for a GPU problem (the CPU takes over, with a notice); throws LoadCancelled
    // when `progress` cancels the upload to a GPU, and the CPU backend's own errors.
    BackendSelection select(const BackendPreference& preference, const Model& model,
                            const UploadProgress& progress = {});
    // The CPU backend for `preference`'s threads, whatever kind it names.
    static std::unique_ptr<Backend> cpu(const BackendPreference& preference, const Model& model);

    // `options` for loading a model that select() will then run: the CPU's weight layout
    // (engine/model/strip_layout.h) where select() is sure to pick the CPU backend, the
    // file's own where a GPU may run it (the upload would only unpack the strips again) and for
    // the reference pass. A later switch of backend reads either layout.
    MapOptions load_options(const BackendPreference& preference, MapOptions options = {});

private:
    // Whether select() runs `preference` on the CPU backend without trying a GPU: an unknown
    // setting, the CPU asked for, or automatic where no device counts as a GPU.
    bool certainly_cpu(const BackendPreference& preference);
    // has_gpu(), asked once per selector: each call creates a Vulkan instance.
    bool machine_has_gpu();

    // Why device `index` (none: the best GPU) failed the self-test; nothing when it passed. Each
    // device is tested once per selector.
    std::optional<Notice> self_test_failure(std::optional<uint32_t> index, bool allow_cpu_device);

    BackendSelectorOptions m_options;
    std::map<std::string, std::optional<Notice>> m_self_tests;
    std::optional<bool> m_has_gpu;
};

// Whether the machine has a Vulkan device that is not a CPU implementation (no driver: none).
bool has_gpu();

}  // namespace hearth
