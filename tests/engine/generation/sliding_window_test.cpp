// Sliding-window layers (Gemma 2 and 3: a local layer sees its last 32 positions in the shared
// files) through a conversation's life: a prompt longer than the window, a follow-up turn that
// prefills only the new message, a regenerate, an edit, and a rolling-window overflow, each
// compared with a fresh prefill of the same tokens; with an F16 and with a Q8_0 KV cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/compute/cpu_backend.h"
#include "engine/compute/reference_backend.h"
#include "engine/generation/session.h"
#include "tests/support/fixture_check.h"
#include "tests/support/requests.h"
#include "tests/support/shared_data.h"
#include "tests/support/sliding_window_checks.h"

namespace hearth {
namespace {

using test::greedy;
using test::kWindow;

GenerationResult run(Session& session, const GenerationRequest& request) {
    return session.generate(request, {});
}

// Steps of up to 64 tokens: each local layer keeps a ring of 256 slots (32 + 64 - 1 rounded up),
// which the conversations below wrap several times. Integer kernels only (no panels or sgemm),
// so every chunking gives the same bits and a cold session must match exactly.
const CpuBackendOptions kRingOptions{
    .threads = 2, .chunk_sizes = {1, 8, 64}, .panel_threshold = 1000, .blas_threshold = 1000};

class SlidingWindowTest : public testing::TestWithParam<std::tuple<const char*, KvCacheType>> {
protected:
    void SetUp() override {
        m_model = Model::load(test::model_path(file()));
        ASSERT_EQ(m_model->config().layers[0].window, kWindow);
        m_tokenizer = make_tokenizer(m_model->file());
        m_options = kRingOptions;
        m_options.kv_cache = std::get<1>(GetParam());
        m_backend = std::make_unique<CpuBackend>(*m_model, m_options);
        ASSERT_EQ(m_backend->kv_cache_type(), m_options.kv_cache);
    }
    std::string file() const { return std::get<0>(GetParam()); }

    std::unique_ptr<Model> m_model;
    CpuBackendOptions m_options;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::unique_ptr<CpuBackend> m_backend;
};

// The rule (kv_cache.h): going back keeps the cache while the rings hold the window before the
// new end; past that, it returns to a checkpoint (each turn's start and its prompt's end) and
// runs the tokens from there again.
TEST_P(SlidingWindowTest, FollowUpRegenerateAndEditEqualAFreshPrefill) {
    EXPECT_LT(m_backend->create_sequence(1024)->memory_bytes(),
              CpuBackend::kv_bytes(m_model->config(), 1024,
                                   {.chunk_sizes = {1, 1024}, .kv_cache = m_options.kv_cache}));
    const size_t memory = test::expect_the_going_back_rule(
        *m_backend, *m_tokenizer,
        {.prompt = 300, .answer = 40, .message = 71, .wrapping_answer = 250, .later_answers = 250});
    // Rings and checkpoints stay within what the picker's estimate counts.
    EXPECT_LE(memory, CpuBackend::kv_bytes(m_model->config(), 1024, m_options));
    EXPECT_GT(memory, m_backend->create_sequence(1024)->memory_bytes());
}

// A short step back needs no checkpoint: the rings still hold the window before it.
TEST_P(SlidingWindowTest, AShortRegenerateKeepsTheRings) {
    auto sequence = m_backend->create_sequence(1024);
    const auto tokens = test::salted_prompt(600, 4);
    m_backend->forward(tokens, *sequence, LogitRows::None);
    const int back = test::kRing - kWindow + 1;  // the ring holds 344..599; 375 needs 344..374
    EXPECT_EQ(sequence->keepable(600 - back), 600 - back);
    EXPECT_EQ(sequence->keepable(600 - back - 10), 0);
    sequence->truncate(600 - back);
    const auto resumed =
        m_backend->forward(std::span(tokens).subspan(600 - back), *sequence, LogitRows::Last);
    auto fresh = m_backend->create_sequence(1024);
    EXPECT_EQ(m_backend->forward(tokens, *fresh, LogitRows::Last), resumed);
    EXPECT_THROW(sequence->truncate(100), std::logic_error);
}

// Dropping positions from the middle (the rolling-window policy) moves every later position, and
// with it every local layer's window and ring slots: the CPU backend with rings goes on exactly
// as it does with whole caches (steps of 1024 need no ring), and as the reference pass does.
// (None equals a fresh prefill of the kept tokens: deeper layers' cached entries still carry
// what the dropped tokens contributed.)
TEST_P(SlidingWindowTest, ARollingWindowOverflowMovesTheWindowsAsTheReferenceDoes) {
    const int length = 400, keep = 4, dropped = 2 * kWindow + 5;  // the rings wrapped
    ReferenceBackend reference(*m_model);
    auto whole_options = m_options;
    whole_options.chunk_sizes = {1, 8, 64, 1024};
    CpuBackend whole(*m_model, whole_options);
    const auto rings = test::logits_after_erase(*m_backend, length, keep, dropped);
    // Activations rounded to 8 bits for quantised weights, F16 or Q8_0 keys re-rotated: as the
    // fixture tests' tolerances (native_tolerance).
    const bool quantised = file().find("Q4_K") != std::string::npos;
    const bool q8_0 = m_options.kv_cache == KvCacheType::Q8_0;
    const float tolerance = quantised ? 0.05f : q8_0 ? 2e-2f : 5e-3f;
    EXPECT_LT(
        test::largest_difference(rings, test::logits_after_erase(reference, length, keep, dropped)),
        tolerance);
    EXPECT_EQ(rings, test::logits_after_erase(whole, length, keep, dropped));
    EXPECT_LT(m_backend->create_sequence(512)->memory_bytes(),
              whole.create_sequence(512)->memory_bytes());
}

// The session's rolling window runs a Gemma answer far past its context, the window's layers
// included.
TEST_P(SlidingWindowTest, TheSessionsRollingWindowGoesOnPastTheContext) {
    Session session(*m_backend, *m_tokenizer, 320);  // more than a ring
    auto request = greedy(test::salted_prompt(kWindow, 5), 600);
    request.overflow = OverflowPolicy::RollingWindow;
    request.keep_tokens = 2;
    const auto result = run(session, request);
    // Past the context, to the token limit, or to an end-of-generation token the model chose
    // there (the Q4_K_M file with a Q8_0 cache does at 503 on the AVX-512 VNNI kernels): never
    // stopped by the context.
    const StopReason reason = result.stats.stop_reason;
    EXPECT_TRUE(reason == StopReason::MaxTokens || reason == StopReason::EndOfGeneration)
        << stop_reason_name(reason);
    EXPECT_EQ(result.stats.generated_tokens == 600, reason == StopReason::MaxTokens);
    EXPECT_GT(result.stats.generated_tokens, 320);
    EXPECT_GT(result.stats.dropped_tokens, 0);
    EXPECT_LE(session.cached_tokens(), 320);
}

// A Q8_0 cache takes 34 bytes for every 32 values F16 takes 64 for, rings and checkpoints alike.
TEST(SlidingWindowMemory, AQ8_0CacheTakes34BytesPer32Values) {
    const auto model = Model::load(test::model_path("synth-gemma3-256.gguf"));
    const CpuBackendOptions q8_0{.kv_cache = KvCacheType::Q8_0};
    EXPECT_EQ(CpuBackend::kv_bytes(model->config(), 1024, q8_0) * 64,
              CpuBackend::kv_bytes(model->config(), 1024) * 34);
    CpuBackend f16_backend(*model, {.threads = 1}),
        q8_0_backend(*model, {.threads = 1, .kv_cache = KvCacheType::Q8_0});
    EXPECT_EQ(q8_0_backend.create_sequence(1024)->memory_bytes() * 64,
              f16_backend.create_sequence(1024)->memory_bytes() * 34);
}

// Gemma 3 1B's shape (26 layers, every sixth global, window 512, one KV head of 256) at 32k with
// the CPU backend's default steps (up to 512): 4 whole layers and 22 rings of 1024 slots.
TEST(SlidingWindowMemory, Gemma3OneBAt32kNeedsUnderAFifthOfAWholeCache) {
    ModelConfig config;
    config.kv_head_count = 1;
    config.head_dim = 256;
    for (int layer = 0; layer < 26; ++layer) {
        config.layers.push_back({.window = layer % 6 < 5 ? 512 : 0});
    }
    const size_t rings = CpuBackend::kv_bytes(config, 32768);
    for (auto& layer : config.layers) layer.window = 0;
    const size_t whole = CpuBackend::kv_bytes(config, 32768);
    EXPECT_EQ(whole, 2u * 2u * 26u * 32768u * 256u);
    // Two checkpoints of each ring's window come on top.
    EXPECT_EQ(rings, 2u * 2u * (4u * 32768u + 22u * (1024u + 2u * 512u)) * 256u);
    EXPECT_LT(static_cast<double>(rings) / whole, 0.21);
}

INSTANTIATE_TEST_SUITE_P(Gemma, SlidingWindowTest,
                         testing::Combine(testing::Values("synth-gemma2-256-Q4_K_M.gguf",
                                                          "synth-gemma3-256-Q4_K_M.gguf",
                                                          "synth-gemma3-256.gguf"),
                                          testing::Values(KvCacheType::F16, KvCacheType::Q8_0)),
                         [](const auto& info) {
                             return test::parameter_name(std::get<0>(info.param)) + "_" +
                                    std::string(to_string(std::get<1>(info.param)));
                         });

}  // namespace
}  // namespace hearth
