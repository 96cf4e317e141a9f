// The start-up check a GPU must pass before Hearth trusts it: a tiny model runs on the device and
// on the CPU backend, and their logits must agree. Drivers that compute wrong results without
// reporting an error exist (the gibberish some Vulkan LLM apps print); such a device is not used,
// and the user is told why.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace hearth::vulkan {

struct SelfTestResult {
    bool passed = false;
    std::string device;  // the device's name
    std::string reason;  // why it failed, for the user
    double max_difference = 0.0;
    int rows_compared = 0;
};

// Runs `model` (the bundled stories260K) on Vulkan device `index` (none: the best GPU) and on
// the CPU: every row of a 40-token prompt and 24 chain-decoded greedy steps. Passes when every
// logit agrees within `tolerance` and the greedy tokens match. A device that cannot even start
// fails with the driver's error as the reason; nothing is thrown.
SelfTestResult self_test_device(std::optional<uint32_t> index, bool allow_cpu_device,
                                const std::filesystem::path& model, double tolerance = 0.05);

}  // namespace hearth::vulkan
