#include "app/phrasing/notice_text.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(NoticeText, OverflowNoticesSayWhatWasDroppedWithTheNumbers) {
    const auto prompt = notice_text({.kind = NoticeKind::PromptTrimmed,
                                     .dropped = 120,
                                     .kept = 30,
                                     .conversation_tokens = 600,
                                     .context_tokens = 512});
    EXPECT_TRUE(has(prompt, "600 tokens")) << prompt;
    EXPECT_TRUE(has(prompt, "512 tokens")) << prompt;
    EXPECT_TRUE(has(prompt, "120 tokens of the oldest messages after the first 30 tokens"))
        << prompt;
    const auto answer =
        notice_text({.kind = NoticeKind::AnswerTrimmed, .dropped = 1, .context_tokens = 64});
    EXPECT_TRUE(has(answer, "context of 64 tokens: 1 token of the oldest")) << answer;
    const auto full = notice_text({.kind = NoticeKind::ContextFilled, .context_tokens = 12});
    EXPECT_TRUE(has(full, "12 tokens")) << full;
    EXPECT_TRUE(has(full, "rolling window")) << full;
}

TEST(NoticeText, ATemplateFallbackNamesTheConstruct) {
    const auto text = notice_text(
        {.kind = NoticeKind::TemplateFallback, .detail = "{% include %} is not supported"});
    EXPECT_TRUE(has(text, "chat template could not be used ({% include %} is not supported)"));
    EXPECT_TRUE(has(text, "built-in format"));
}

TEST(NoticeText, RemoteSettingsNoticesNameTheSettings) {
    const auto not_sent = notice_text({.kind = NoticeKind::SettingsNotSent, .detail = "seed"});
    EXPECT_TRUE(has(not_sent, "Not sent to the remote engine"));
    EXPECT_TRUE(has(not_sent, ": seed."));
    const auto extensions =
        notice_text({.kind = NoticeKind::SettingsAsExtensions, .detail = "top_k, min_p"});
    EXPECT_TRUE(has(extensions, "extensions that some servers ignore: top_k, min_p."));
}

TEST(NoticeText, GpuNoticesNameTheDeviceAndTheReason) {
    const auto self_test = notice_text({.kind = NoticeKind::GpuNotUsed,
                                        .problem = GpuProblem::FailedSelfTest,
                                        .device = "Radeon",
                                        .detail = "its greedy tokens differ"});
    EXPECT_TRUE(has(self_test, "Radeon")) << self_test;
    EXPECT_TRUE(has(self_test, "its greedy tokens differ")) << self_test;
    EXPECT_TRUE(has(self_test, "Using the CPU")) << self_test;
    EXPECT_TRUE(has(notice_text({.kind = NoticeKind::GpuNotUsed,
                                 .problem = GpuProblem::UnknownSetting,
                                 .detail = "metal"}),
                    "\"metal\""));
    const auto slower = notice_text({.kind = NoticeKind::GpuNotUsed,
                                     .problem = GpuProblem::SlowerThanCpu,
                                     .device = "vulkan (Radeon)",
                                     .device_seconds = 3.04,
                                     .cpu_seconds = 1.42});
    EXPECT_TRUE(has(slower,
                    "The GPU (vulkan (Radeon)) runs this model slower than the CPU (3.0 s "
                    "against 1.4 s for a 512-token prompt and a 128-token answer): using "
                    "the CPU."))
        << slower;
    const Notice lost{.kind = NoticeKind::GpuLost, .detail = "device lost", .resumed = true};
    EXPECT_TRUE(has(notice_text(lost), "The GPU failed (device lost); Hearth continues"));
    auto ended = lost;
    ended.resumed = false;
    EXPECT_TRUE(has(notice_text(ended), "the answer ends here"));
}

TEST(NoticeText, SeveralNoticesAreJoined) {
    const Notices notices{{.kind = NoticeKind::ContextFilled, .context_tokens = 8},
                          {.kind = NoticeKind::GpuLost, .detail = "x", .resumed = true}};
    EXPECT_EQ(notices_text(notices), notice_text(notices[0]) + " " + notice_text(notices[1]));
    EXPECT_EQ(notices_text({}), "");
}

TEST(NoticeText, TypedErrorsArePhrasedAndOthersKeepTheirOwnWords) {
    const ContextFullError stop({.needed = 20, .capacity = 12});
    EXPECT_TRUE(has(error_text(stop), "The conversation is 20 tokens but the context holds 12"));
    EXPECT_TRUE(has(error_text(stop), "start a new conversation"));
    const ContextFullError cannot(
        {.needed = 20, .capacity = 12, .kept = 9, .latest = 7, .stop_policy = false});
    EXPECT_TRUE(has(error_text(cannot), "kept start (9 tokens) and the latest message (7 tokens)"));
    const InsufficientMemoryError memory(
        {.file = "m.gguf", .needed = 2048u << 20, .available = 1024u << 20, .context = 4096});
    EXPECT_TRUE(has(error_text(memory), "m.gguf: needs 2048 MiB at a context of 4096 tokens"));
    EXPECT_EQ(error_text(std::runtime_error("as it was")), "as it was");
}

}  // namespace
}  // namespace hearth
