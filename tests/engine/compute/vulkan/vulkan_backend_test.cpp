// The Vulkan backend on a real device (Mesa's lavapipe here): the llama.cpp fixtures of every
// shared model by the CPU backend's rules, chain decode against step-by-step decoding, weights in
// pieces and through staging, context overflow, and a lost device.
#include "engine/compute/vulkan/vulkan_backend.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/compute/cpu_backend.h"
#include "engine/compute/kv_cache.h"
#include "engine/compute/vulkan/device.h"
#include "engine/compute/vulkan/self_test.h"
#include "engine/generation/session.h"
#include "engine/text/tokenizer.h"
#include "tests/support/backend_checks.h"
#include "tests/support/fixture_check.h"
#include "tests/support/shared_data.h"
#include "tests/support/unsupported_files.h"

namespace hearth {
namespace {

VulkanBackendOptions on_lavapipe(VulkanBackendOptions options = {}) {
    options.allow_cpu_device = true;
    return options;
}

class VulkanFixtureTest : public testing::TestWithParam<std::string> {};

TEST_P(VulkanFixtureTest, MatchesLlamaCppAtEveryPositionAndGreedyStep) {
    if (test::model_refused_as_listed(GetParam())) return;
    const auto counts = test::check_native_fixture(GetParam(), [](const Model& model) {
        return std::make_unique<VulkanBackend>(model, on_lavapipe());
    });
    EXPECT_GT(counts.top1_checked, 0);
}

INSTANTIATE_TEST_SUITE_P(SharedModels, VulkanFixtureTest,
                         testing::ValuesIn(test::native_model_fixtures()),
                         [](const auto& info) { return test::parameter_name(info.param); });

// Chooses like the decode loop does on the host and lets the device choose under `rule`.
class RecordingPicker final : public TokenPicker {
public:
    explicit RecordingPicker(std::optional<SamplerSettings> rule, int stop_after = -1)
        : m_rule(rule), m_stop_after(stop_after) {}
    int32_t pick(std::span<const float> logits) override { return argmax(logits); }
    bool accept(int32_t token) override {
        tokens.push_back(token);
        return static_cast<int>(tokens.size()) != m_stop_after;
    }
    std::optional<SamplerSettings> device_rule() const override { return m_rule; }
    std::vector<int32_t> tokens;

private:
    std::optional<SamplerSettings> m_rule;
    int m_stop_after;
};

SamplerSettings greedy() {
    SamplerSettings settings;
    settings.temperature = 0.0f;
    return settings;
}

const std::vector<int32_t> kPrompt{1, 403, 407, 261, 378, 429, 410, 270};

// Chain decode (N tokens per submission, the argmax on the device) gives the tokens and the
// cache that step-by-step decoding with the host choosing gives.
TEST(VulkanBackend, ChainDecodeEqualsStepByStepGreedy) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    std::vector<int32_t> expected;
    std::vector<float> expected_logits;
    {
        VulkanBackend backend(*model, on_lavapipe());
        auto sequence = backend.create_sequence(128);
        const auto logits = backend.forward(kPrompt, *sequence, LogitRows::Last);
        RecordingPicker picker(std::nullopt);
        EXPECT_EQ(backend.decode(*sequence, argmax(logits), 60, picker), 60);
        expected = picker.tokens;
        EXPECT_EQ(sequence->size(), static_cast<int>(kPrompt.size()) + 60);
        expected_logits =
            backend.forward(std::span(&expected.back(), 1), *sequence, LogitRows::Last);
    }
    for (const int chunk : {1, 8, 32}) {
        VulkanBackend backend(*model, on_lavapipe({.decode_chunk = chunk}));
        auto sequence = backend.create_sequence(128);
        const auto logits = backend.forward(kPrompt, *sequence, LogitRows::Last);
        RecordingPicker picker(greedy());
        EXPECT_EQ(backend.decode(*sequence, argmax(logits), 60, picker), 60);
        EXPECT_EQ(picker.tokens, expected) << "chunk " << chunk;
        ASSERT_EQ(sequence->size(), static_cast<int>(kPrompt.size()) + 60);
        const auto next =
            backend.forward(std::span(&expected.back(), 1), *sequence, LogitRows::Last);
        for (size_t i = 0; i < next.size(); ++i) ASSERT_NEAR(next[i], expected_logits[i], 1e-4);
    }
}

// A declined token (a stop token, the user's cancel) ends the chain where it was declined, even
// inside a chunk and with the next chunk already in flight; the cache rolls back to it.
TEST(VulkanBackend, ADeclinedTokenRollsTheChainBack) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    VulkanBackend backend(*model, on_lavapipe({.decode_chunk = 8}));
    auto reference = backend.create_sequence(128);
    const auto logits = backend.forward(kPrompt, *reference, LogitRows::Last);
    RecordingPicker full(greedy());
    backend.decode(*reference, argmax(logits), 30, full);

    auto sequence = backend.create_sequence(128);
    backend.forward(kPrompt, *sequence, LogitRows::Last);
    RecordingPicker stopping(greedy(), 11);
    EXPECT_EQ(backend.decode(*sequence, argmax(logits), 30, stopping), 11);
    EXPECT_EQ(sequence->size(), static_cast<int>(kPrompt.size()) + 11);
    // Going on from there continues the same text.
    RecordingPicker rest(greedy());
    EXPECT_EQ(backend.decode(*sequence, stopping.tokens.back(), 19, rest), 19);
    auto joined = stopping.tokens;
    joined.insert(joined.end(), rest.tokens.begin(), rest.tokens.end());
    EXPECT_EQ(joined, full.tokens);
}

// Sampling on the device: the same seed gives the same tokens, another seed others; settings the
// device cannot follow (top-p without top-k) fall back to the host's choice.
TEST(VulkanBackend, SampledChainDecodeIsReproducible) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    VulkanBackend backend(*model, on_lavapipe());
    const auto run = [&](uint64_t seed) {
        SamplerSettings settings;
        settings.temperature = 1.0f;
        settings.top_k = 40;
        settings.top_p = 0.95f;
        settings.seed = seed;
        auto sequence = backend.create_sequence(128);
        const auto logits = backend.forward(kPrompt, *sequence, LogitRows::Last);
        RecordingPicker picker(settings);
        backend.decode(*sequence, argmax(logits), 40, picker);
        return picker.tokens;
    };
    const auto a = run(5), b = run(5), c = run(6);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    for (const int32_t token : a) EXPECT_LT(token, 512);
    SamplerSettings top_p_only;
    top_p_only.top_k = 0;
    top_p_only.top_p = 0.9f;
    EXPECT_FALSE(VulkanBackend::chooses_on_device(top_p_only));
    EXPECT_TRUE(VulkanBackend::chooses_on_device(greedy()));
}

// Weights in pieces of a few rows (as a matrix beyond the 128 MiB storage-buffer range would
// be) and uploaded through staging buffers (as on a discrete GPU) give the same logits.
TEST(VulkanBackend, PiecesAndStagingGiveTheSameLogits) {
    const auto model = Model::load(test::model_path("synth-qwen2-256-Q4_K_M.gguf"));
    VulkanBackend whole(*model, on_lavapipe());
    auto a = whole.create_sequence(64);
    const auto expected = whole.forward(kPrompt, *a, LogitRows::All);

    VulkanBackend pieces(*model, on_lavapipe({.max_piece_bytes = 4096, .staging_only = true}));
    auto b = pieces.create_sequence(64);
    const auto logits = pieces.forward(kPrompt, *b, LogitRows::All);
    ASSERT_EQ(logits.size(), expected.size());
    for (size_t i = 0; i < logits.size(); ++i) ASSERT_NEAR(logits[i], expected[i], 1e-4) << i;
    // The rolling window's round trip through the host takes the staging path too.
    a->erase(2, 3);
    b->erase(2, 3);
    const std::vector<int32_t> next{42};
    const auto x = whole.forward(next, *a, LogitRows::Last),
               y = pieces.forward(next, *b, LogitRows::Last);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], y[i], 1e-4) << i;
}

TEST(VulkanBackend, RefusesWhatDoesNotFitAndLeavesTheSequenceAsItWas) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    VulkanBackend backend(*model, on_lavapipe());
    test::expect_context_limits(backend);
}

// Dropping positions (the rolling window) on the device: the same cache as the CPU backend's
// shift, so the next logits agree as closely as the two backends always do.
TEST(VulkanBackend, ErasingPositionsMatchesTheCpuBackend) {
    const auto model = Model::load(test::model_path("synth-llama3-256-Q8_0.gguf"));
    std::vector<int32_t> tokens{1};
    for (int i = 0; i < 40; ++i) tokens.push_back(3 + (i * 37) % 250);
    VulkanBackend vulkan(*model, on_lavapipe());
    CpuBackend cpu(*model, {.threads = 2});
    auto on_device = vulkan.create_sequence(64), on_cpu = cpu.create_sequence(64);
    vulkan.forward(tokens, *on_device, LogitRows::None);
    cpu.forward(tokens, *on_cpu, LogitRows::None);
    on_device->erase(5, 12);
    on_cpu->erase(5, 12);
    EXPECT_EQ(on_device->size(), 41 - 12);
    const std::vector<int32_t> next{17};
    const auto x = vulkan.forward(next, *on_device, LogitRows::Last);
    const auto y = cpu.forward(next, *on_cpu, LogitRows::Last);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], y[i], 0.05) << i;
    EXPECT_EQ(argmax(x), argmax(y));
}

// A lost device (injected: lavapipe does not lose itself) is an error naming it, and stays lost.
TEST(VulkanBackend, ALostDeviceIsAnError) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    VulkanBackend backend(*model, on_lavapipe());
    auto sequence = backend.create_sequence(64);
    backend.device().inject_device_loss_after(0);
    try {
        backend.forward(kPrompt, *sequence, LogitRows::Last);
        FAIL() << "no error";
    } catch (const vulkan::VulkanError& error) {
        EXPECT_EQ(error.result(), VK_ERROR_DEVICE_LOST);
        EXPECT_NE(std::string(error.what()).find("device lost"), std::string::npos);
    }
    RecordingPicker picker(greedy());
    EXPECT_THROW(backend.decode(*sequence, 403, 4, picker), vulkan::VulkanError);
}

// Through a session, as the app runs it: a long prompt goes to the device in batches of 512
// tokens (its planner steps back to back, one wait per batch, progress between), and the greedy
// answer equals the CPU backend's.
TEST(VulkanBackend, ASessionPrefillsInBatchesAndAnswersAsTheCpuDoes) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    const auto tokenizer = make_tokenizer(model->file());
    std::vector<int32_t> prompt{1};
    for (int i = 0; i < 699; ++i) prompt.push_back(3 + (i * 37) % 500);
    const auto answer = [&](Backend& backend, std::vector<int>& progress) {
        Session session(backend, *tokenizer, 1024);
        GenerationRequest request;
        request.prompt = prompt;
        request.max_tokens = 24;
        request.sampler.temperature = 0.0f;
        const GenerationSink sink{.on_prefill = [&](int done, int) {
            progress.push_back(done);
            return true;
        }};
        return session.generate(request, sink).tokens;
    };
    VulkanBackend vulkan(*model, on_lavapipe());
    CpuBackend cpu(*model, {.threads = 2, .chunk_sizes = {1, 8, 64}});
    std::vector<int> on_device, on_cpu;
    EXPECT_EQ(answer(vulkan, on_device), answer(cpu, on_cpu));
    EXPECT_EQ(on_device, (std::vector<int>{512, 700}));
    EXPECT_EQ(on_cpu.size(), 11u);  // one report per planner step
}

// The start-up check: lavapipe agrees with the CPU; a device held to a standard it does not meet
// (here: agreement to 1e-9, which no two backends reach) is refused with the reason; a device
// that cannot start is refused with the driver's error, and nothing is thrown.
TEST(VulkanBackend, TheSelfTestAcceptsAnAgreeingDeviceAndRefusesOthers) {
    const auto model = test::model_path("stories260K.gguf");
    const auto passed = vulkan::self_test_device(std::nullopt, true, model);
    EXPECT_TRUE(passed.passed) << passed.reason;
    EXPECT_EQ(passed.rows_compared, 40);
    EXPECT_GT(passed.max_difference, 0.0);
    EXPECT_LT(passed.max_difference, 0.05);
    EXPECT_FALSE(passed.device.empty());

    const auto strict = vulkan::self_test_device(std::nullopt, true, model, 1e-9);
    EXPECT_FALSE(strict.passed);
    EXPECT_NE(strict.reason.find("differ from the CPU's"), std::string::npos) << strict.reason;

    const auto missing = vulkan::self_test_device(99, true, model);
    EXPECT_FALSE(missing.passed);
    EXPECT_NE(missing.reason.find("device 99 does not exist"), std::string::npos) << missing.reason;
}

}  // namespace
}  // namespace hearth
