#include "app/phrasing/notice_text.h"

#include <fmt/format.h>

#include "engine/runtime/turn_time.h"

namespace hearth {
namespace {

std::string tokens(int count) {
    return fmt::format("{} token{}", count, count == 1 ? "" : "s");
}

constexpr const char* kContextAdvice =
    "start a new conversation, raise the context length, or choose a rolling window in the "
    "conversation's settings.";

std::string gpu_not_used_text(const Notice& notice) {
    switch (notice.problem) {
        case GpuProblem::FailedSelfTest:
            return fmt::format("The GPU ({}) failed Hearth's start-up check: {}. Using the CPU.",
                               notice.device, notice.detail);
        case GpuProblem::UnknownSetting:
            return fmt::format("Unknown backend setting \"{}\": using the CPU.", notice.detail);
        case GpuProblem::UploadCancelled:
            return "Loading onto the GPU was cancelled; using the CPU.";
        case GpuProblem::SlowerThanCpu:
            return fmt::format(
                "The GPU ({}) runs this model slower than the CPU ({:.1f} s against {:.1f} s for "
                "a {}-token prompt and a {}-token answer): using the CPU. Choose the GPU in the "
                "backend setting to use it anyway.",
                notice.device, notice.device_seconds, notice.cpu_seconds, kTypicalTurnPrompt,
                kTypicalTurnAnswer);
        default:
            return fmt::format("The GPU cannot run this model ({}): using the CPU.", notice.detail);
    }
}

}  // namespace

std::string notice_text(const Notice& notice) {
    switch (notice.kind) {
        case NoticeKind::PromptTrimmed:
            return fmt::format(
                "The conversation is {} but the context holds {}: {} of the oldest messages "
                "after the first {} were left out of the model's view.",
                tokens(notice.conversation_tokens), tokens(notice.context_tokens),
                tokens(notice.dropped), tokens(notice.kept));
        case NoticeKind::AnswerTrimmed:
            return fmt::format(
                "The answer outgrew the context of {}: {} of the oldest messages were dropped "
                "to continue.",
                tokens(notice.context_tokens), tokens(notice.dropped));
        case NoticeKind::ContextFilled:
            return fmt::format("The answer stopped at the context length of {}: {}",
                               tokens(notice.context_tokens), kContextAdvice);
        case NoticeKind::GpuNotUsed:
            return gpu_not_used_text(notice);
        case NoticeKind::GpuLost:
            return notice.resumed
                       ? fmt::format("The GPU failed ({}); Hearth continues on the CPU.",
                                     notice.detail)
                       : fmt::format(
                             "The GPU failed ({}); the answer ends here and Hearth continues on "
                             "the CPU.",
                             notice.detail);
        case NoticeKind::TemplateFallback:
            return fmt::format(
                "The model's chat template could not be used ({}), so Hearth wrote the prompt "
                "in the built-in format of its family; answers may be a little off.",
                notice.detail);
        case NoticeKind::SettingsNotSent:
            return fmt::format(
                "Not sent to the remote engine, whose API has no field for them (it used its own "
                "instead): {}.",
                notice.detail);
        case NoticeKind::SettingsAsExtensions:
            return fmt::format(
                "Sent to the remote engine as extensions that some servers ignore: {}.",
                notice.detail);
    }
    return {};
}

std::string notices_text(const Notices& notices) {
    std::string text;
    for (const auto& notice : notices) text += (text.empty() ? "" : " ") + notice_text(notice);
    return text;
}

std::string shortfall_text(const ContextShortfall& shortfall) {
    const std::string size = fmt::format("The conversation is {} but the context holds {}",
                                         tokens(shortfall.needed), tokens(shortfall.capacity));
    if (shortfall.stop_policy) return size + ": " + kContextAdvice;
    return fmt::format(
        "{}, and dropping older messages cannot make room: the kept start ({}) and the latest "
        "message ({}) are too long. Shorten the message or raise the context length.",
        size, tokens(shortfall.kept), tokens(shortfall.latest));
}

std::string shortfall_text(const MemoryShortfall& shortfall) {
    return fmt::format(
        "{}: needs {} MiB at a context of {}, but only {} MiB of memory is free. Close other "
        "programs or choose a smaller model.",
        shortfall.file.string(), shortfall.needed >> 20, tokens(shortfall.context),
        shortfall.available >> 20);
}

std::string error_text(const std::exception& error) {
    if (const auto* full = dynamic_cast<const ContextFullError*>(&error))
        return shortfall_text(full->facts());
    if (const auto* memory = dynamic_cast<const InsufficientMemoryError*>(&error))
        return shortfall_text(memory->facts());
    return error.what();
}

}  // namespace hearth
