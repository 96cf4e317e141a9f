// What the engine did that the user did not ask for, as facts: front ends phrase them (the
// engine holds no sentences for users).
#pragma once

#include <string>
#include <vector>

namespace hearth {

// Values may be logged and sent to clients: do not change or reuse.
enum class NoticeKind : int {
    // Overflow left older messages out of the prompt: `dropped` of `conversation_tokens`, after
    // the first `kept`, to fit `context_tokens`.
    PromptTrimmed = 0,
    // The answer outgrew the context and `dropped` of the oldest tokens made room for it.
    AnswerTrimmed = 1,
    // The answer stopped at the context length (the policy is to stop).
    ContextFilled = 2,
    // The GPU asked for is not used: `device` (may be empty), `reason`, `detail` (the driver's
    // or the check's own words).
    GpuNotUsed = 3,
    // The GPU failed mid-answer; the CPU took over (`resumed`), or the answer ended there.
    GpuLost = 4,
    // The model's chat template could not be run and its family's built-in format was used;
    // `detail` names the construct that failed.
    TemplateFallback = 5,
    // A remote engine was asked without settings its API has no field for; it applied its own.
    // `detail`: their names, comma-separated.
    SettingsNotSent = 6,
    // A remote engine was sent settings in extension fields only some servers read. `detail`:
    // their names, comma-separated.
    SettingsAsExtensions = 7,
};

// Why a GPU is not used (GpuNotUsed, GpuLost).
enum class GpuProblem : int {
    None = 0,
    FailedSelfTest = 1,   // its results disagreed with the CPU's
    CannotRunModel = 2,   // the backend could not start (driver error, memory, limits)
    UnknownSetting = 3,   // the backend setting names no known backend
    UploadCancelled = 4,  // the user cancelled the weight upload
    DeviceLost = 5,       // it failed while running
    SlowerThanCpu = 6,    // automatic: it ran this model slower than the CPU backend
};

struct Notice {
    NoticeKind kind = NoticeKind::PromptTrimmed;
    int dropped = 0;
    int kept = 0;
    int conversation_tokens = 0;
    int context_tokens = 0;
    GpuProblem problem = GpuProblem::None;
    std::string device;
    std::string detail;
    bool resumed = false;  // GpuLost: the answer went on on the CPU
    // SlowerThanCpu: seconds for a typical turn (engine/runtime/turn_time.h) on each.
    double device_seconds = 0;
    double cpu_seconds = 0;

    bool operator==(const Notice&) const = default;
};

using Notices = std::vector<Notice>;

}  // namespace hearth
