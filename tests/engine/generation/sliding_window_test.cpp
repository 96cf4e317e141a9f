// Sliding-window layers (Gemma 2 and 3: a local layer sees its last 32 positions in the shared
// files) through a conversation's life: a prompt longer than the window, a follow-up turn that
// prefills only the new message, a regenerate, an edit, and a rolling-window overflow, each
// compared with a fresh prefill of the same tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/compute/cpu_backend.h"
#include "engine/compute/reference_backend.h"
#include "engine/generation/session.h"
#include "tests/support/fixture_check.h"
#include "tests/support/shared_data.h"

namespace hearth {
namespace {

constexpr int kWindow = 32;

std::vector<int32_t> prompt_of(int length, int salt) {
    std::vector<int32_t> tokens{1};
    for (int i = 1; i < length; ++i) tokens.push_back(3 + (i * 53 + salt) % 500);
    return tokens;
}

GenerationRequest greedy(std::vector<int32_t> prompt, int max_tokens) {
    GenerationRequest request;
    request.prompt = std::move(prompt);
    request.max_tokens = max_tokens;
    request.sampler.temperature = 0.0f;
    return request;
}

GenerationResult run(Session& session, const GenerationRequest& request) {
    return session.generate(request, {});
}

class SlidingWindowTest : public testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        m_model = Model::load(test::model_path(GetParam()));
        ASSERT_EQ(m_model->config().layers[0].window, kWindow);
        m_tokenizer = make_tokenizer(m_model->file());
        m_backend = std::make_unique<CpuBackend>(
            *m_model,
            CpuBackendOptions{.threads = 2, .panel_threshold = 1000, .blas_threshold = 1000});
    }
    GenerationResult cold(const GenerationRequest& request) {
        Session session(*m_backend, *m_tokenizer, 512);
        return run(session, request);
    }

    std::unique_ptr<Model> m_model;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::unique_ptr<CpuBackend> m_backend;
};

TEST_P(SlidingWindowTest, FollowUpRegenerateAndEditEqualAFreshPrefill) {
    Session session(*m_backend, *m_tokenizer, 512);
    auto request = greedy(prompt_of(4 * kWindow + 7, 1), 24);
    const auto first = run(session, request);
    EXPECT_EQ(first.tokens, cold(request).tokens);

    // A follow-up turn prefills only the answer's last token and the new message.
    auto next = request.prompt;
    next.insert(next.end(), first.tokens.begin(), first.tokens.end());
    const auto message = prompt_of(2 * kWindow + 3, 7);
    next.insert(next.end(), message.begin() + 1, message.end());
    auto follow_up = greedy(next, 24);
    const auto second = run(session, follow_up);
    EXPECT_EQ(second.stats.prefilled_tokens, static_cast<int>(message.size()));
    EXPECT_EQ(second.tokens, cold(follow_up).tokens);

    // Regenerate: the same prompt again runs only its last token.
    const auto again = run(session, follow_up);
    EXPECT_EQ(again.stats.prefilled_tokens, 1);
    EXPECT_EQ(again.tokens, second.tokens);

    // Edit a token a few windows back: the cache forks there.
    auto edited = follow_up;
    const size_t fork = edited.prompt.size() - 3 * kWindow;
    edited.prompt[fork] = edited.prompt[fork] == 40 ? 41 : 40;
    const auto third = run(session, edited);
    EXPECT_EQ(third.stats.cached_tokens, static_cast<int>(fork));
    EXPECT_EQ(third.tokens, cold(edited).tokens);
}

// Dropping positions from the middle (the rolling-window policy) moves every later position, and
// with it every local layer's window: the CPU backend (F16 cache, blocked attention) then goes on
// as the reference pass does after the same drop. (Neither equals a fresh prefill of the kept
// tokens: deeper layers' cached entries still carry what the dropped tokens contributed.)
TEST_P(SlidingWindowTest, ARollingWindowOverflowMovesTheWindowsAsTheReferenceDoes) {
    const auto tokens = prompt_of(5 * kWindow, 3);
    const int keep = 4, dropped = 2 * kWindow + 5;
    const auto more = prompt_of(kWindow / 2, 9);
    ReferenceBackend reference(*m_model);
    std::vector<float> logits[2];
    Backend* backends[2] = {m_backend.get(), &reference};
    for (int b = 0; b < 2; ++b) {
        auto sequence = backends[b]->create_sequence(512);
        backends[b]->forward(tokens, *sequence, LogitRows::None);
        sequence->erase(keep, dropped);
        EXPECT_EQ(sequence->size(), 5 * kWindow - dropped);
        logits[b] = backends[b]->forward(std::span(more).subspan(1), *sequence, LogitRows::All);
    }
    // Activations rounded to 8 bits for quantised weights, F16 keys re-rotated: as the fixture
    // tests' tolerances (native_tolerance).
    const bool quantised = std::string(GetParam()).find("Q4_K") != std::string::npos;
    const float tolerance = quantised ? 0.05f : 5e-3f;
    ASSERT_EQ(logits[0].size(), logits[1].size());
    float worst = 0.0f;
    for (size_t i = 0; i < logits[0].size(); ++i) {
        worst = std::max(worst, std::fabs(logits[0][i] - logits[1][i]));
    }
    EXPECT_LT(worst, tolerance);
}

// The session's rolling window runs a Gemma answer far past its context, the window's layers
// included.
TEST_P(SlidingWindowTest, TheSessionsRollingWindowGoesOnPastTheContext) {
    Session session(*m_backend, *m_tokenizer, 3 * kWindow);
    auto request = greedy(prompt_of(kWindow, 5), 4 * kWindow);
    request.overflow = OverflowPolicy::RollingWindow;
    request.keep_tokens = 2;
    const auto result = run(session, request);
    EXPECT_EQ(result.stats.generated_tokens, 4 * kWindow);
    EXPECT_GT(result.stats.dropped_tokens, 0);
    EXPECT_LE(session.cached_tokens(), 3 * kWindow);
}

INSTANTIATE_TEST_SUITE_P(Gemma, SlidingWindowTest,
                         testing::Values("synth-gemma2-256-Q4_K_M.gguf",
                                         "synth-gemma3-256-Q4_K_M.gguf", "synth-gemma3-256.gguf"),
                         [](const auto& info) { return test::parameter_name(info.param); });

}  // namespace
}  // namespace hearth
