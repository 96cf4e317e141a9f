// The fast CPU path against llama.cpp's own outputs for every shared model (the native
// references: llama.cpp also quantises activations), and against itself under any chunking.
#include "engine/compute/cpu_backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/format/gguf_writer.h"
#include "engine/model/strip_layout.h"
#include "tests/support/backend_checks.h"
#include "tests/support/fixture_check.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "tests/support/unsupported_files.h"

namespace hearth {
namespace {

class CpuBackendFixtureTest : public testing::TestWithParam<std::string> {};

TEST_P(CpuBackendFixtureTest, MatchesLlamaCppAtEveryPositionAndGreedyStep) {
    if (test::model_refused_as_listed(GetParam())) return;
    const auto counts = test::check_native_fixture(GetParam(), [](const Model& model) {
        return std::make_unique<CpuBackend>(model, CpuBackendOptions{.threads = 2});
    });
    EXPECT_GT(counts.top1_checked, 0);
}

// Loaded as the engine loads it for the CPU: products of Q4_0, IQ4_NL, IQ4_XS and Q3_K in strips
// (kernels/strips.h), which the CPU multiplies with the strip kernels where it has them and
// unpacks where not. The shared files whose products are of those types.
class CpuStripsFixtureTest : public testing::TestWithParam<std::string> {};

TEST_P(CpuStripsFixtureTest, MatchLlamaCpp) {
    const auto counts = test::check_native_fixture(
        GetParam(),
        [](const Model& model) {
            EXPECT_TRUE(model.weights().layers[0].query.strips);
            return std::make_unique<CpuBackend>(model, CpuBackendOptions{.threads = 2});
        },
        false, false, {.rewrite = strip_layout()});
    EXPECT_GT(counts.top1_checked, 0);
}

INSTANTIATE_TEST_SUITE_P(SharedModels, CpuStripsFixtureTest,
                         testing::Values("synth-llama-256-Q4_0", "synth-llama-256-IQ4_NL",
                                         "synth-llama-256-IQ4_XS", "synth-llama-256-IQ4_XS-mix",
                                         "synth-llama-256-Q3_K", "synth-llama-256-Q3_K_M"),
                         [](const auto& info) { return test::parameter_name(info.param); });

// A Q8_0 KV cache holds the fixture's rules too (its tolerance for files with float weights is
// the 8-bit rounding's, native_tolerance says why), and chooses as the F16 cache does at 99% of
// the steps that are not ties under that tolerance (the bar). The figure by the F16
// cache's tighter tie rule is printed beside it.
TEST_P(CpuBackendFixtureTest, Q8_0CacheMatchesLlamaCppAndAgreesWithF16) {
    if (test::model_refused_as_listed(GetParam())) return;
    test::expect_q8_0_cache_holds(GetParam(), [](const Model& model, KvCacheType type) {
        return std::make_unique<CpuBackend>(model,
                                            CpuBackendOptions{.threads = 2, .kv_cache = type});
    });
}

INSTANTIATE_TEST_SUITE_P(SharedModels, CpuBackendFixtureTest,
                         testing::ValuesIn(test::native_model_fixtures()),
                         [](const auto& info) { return test::parameter_name(info.param); });

// Every family, its sliding windows (32 positions on the Gemma files) crossed by the chunks.
class CpuChunkingTest : public testing::TestWithParam<const char*> {};

TEST_P(CpuChunkingTest, AnyChunkingGivesTheSameLogitsAsTokenByToken) {
    const auto model = Model::load(test::model_path(GetParam()));
    std::vector<int32_t> tokens{1};
    for (int i = 0; i < 150; ++i) tokens.push_back(3 + (i * 37) % 500);
    // Without panels or sgemm every chunking runs the same integer kernels, a chunk's tokens
    // through the many-token dots, which equal the single-token ones bit for bit: equal results,
    // with either cache. Chunks of 256 take all 151 tokens in one step, whose FFN then runs in
    // two slices (CpuBackend::kFeedForwardSlice).
    const std::vector<std::vector<int>> chunkings{{1, 8, 16}, {1, 8, 256}};
    for (const auto& [chunk_sizes, kv_cache] :
         {std::pair{chunkings[0], KvCacheType::F16}, std::pair{chunkings[0], KvCacheType::Q8_0},
          std::pair{chunkings[1], KvCacheType::F16}}) {
        CpuBackend chunked(*model, {.threads = 2,
                                    .chunk_sizes = chunk_sizes,
                                    .panel_threshold = 1000,
                                    .blas_threshold = 1000,
                                    .kv_cache = kv_cache});
        auto whole = chunked.create_sequence(256);
        const auto expected = chunked.forward(tokens, *whole, LogitRows::Last);
        CpuBackend single(*model, {.threads = 1, .chunk_sizes = {1}, .kv_cache = kv_cache});
        auto stepwise = single.create_sequence(256);
        std::vector<float> last;
        for (const int32_t token : tokens)
            last = single.forward(std::span(&token, 1), *stepwise, LogitRows::Last);
        ASSERT_EQ(last.size(), expected.size());
        for (size_t i = 0; i < last.size(); ++i) ASSERT_EQ(last[i], expected[i]) << i;
        EXPECT_EQ(whole->size(), 151);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Families, CpuChunkingTest,
    testing::Values("synth-llama-256-Q4_K_M.gguf", "synth-qwen3-256-Q4_K_M.gguf",
                    "synth-gemma2-256-Q4_K_M.gguf", "synth-gemma3-256-Q4_K_M.gguf",
                    "synth-phi3-256-Q4_K_M.gguf", "synth-smollm3-256-Q4_K_M.gguf",
                    "synth-qwen3moe-256-Q4_K_M.gguf", "synth-gpt-oss-256-Q4_K_M.gguf"),
    [](const auto& info) { return test::parameter_name(info.param); });

// A copy of the F32 file `name` with expert `expert` of layer 0 (its gate, up and down slices)
// made of NaN.
std::filesystem::path with_poisoned_expert(const test::TempDirectory& directory,
                                           const std::string& name, int expert) {
    const auto source = Model::load(test::model_path(name));
    GgufWriter writer;
    for (const auto& [key, value] : source->file().metadata()) {
        if (key != "general.alignment") writer.set(key, value);
    }
    for (const auto& tensor : source->file().tensors()) {
        std::vector<std::byte> bytes(tensor.data, tensor.data + tensor.bytes);
        if (tensor.name.starts_with("blk.0.ffn_") && tensor.name.ends_with("_exps.weight")) {
            const size_t floats = bytes.size() / sizeof(float) / tensor.shape[2];
            const std::vector<float> poison(floats, std::numeric_limits<float>::quiet_NaN());
            std::memcpy(bytes.data() + expert * floats * sizeof(float), poison.data(),
                        floats * sizeof(float));
        }
        writer.add_tensor(tensor.name, tensor.type, tensor.shape, std::move(bytes));
    }
    return directory.write("expert" + std::to_string(expert) + ".gguf", writer.serialize());
}

// Decode reads the router, then only the experts it chose: with one expert's weights made NaN,
// the token's logits are bit for bit those of the clean file when that expert was not chosen,
// and NaN when it was. Four experts with two used: two of the four go unread.
class CpuExpertsTest : public testing::TestWithParam<const char*> {};

TEST_P(CpuExpertsTest, DecodeReadsOnlyTheChosenExperts) {
    const std::string name = GetParam();
    const auto model = Model::load(test::model_path(name));
    const std::vector<int32_t> token{1};
    const auto decode = [&](const Model& weights) {
        CpuBackend backend(weights, {.threads = 2});
        auto sequence = backend.create_sequence(4);
        return backend.forward(token, *sequence, LogitRows::Last);
    };
    const auto clean = decode(*model);
    const test::TempDirectory directory;
    int unread = 0;
    for (int expert = 0; expert < model->config().expert_count; ++expert) {
        const auto poisoned = Model::load(with_poisoned_expert(directory, name, expert));
        const auto logits = decode(*poisoned);
        ASSERT_EQ(logits.size(), clean.size());
        if (std::memcmp(logits.data(), clean.data(), clean.size() * sizeof(float)) == 0) {
            ++unread;
        } else {
            EXPECT_TRUE(std::isnan(logits[0])) << "expert " << expert;
        }
    }
    EXPECT_EQ(unread, model->config().expert_count - model->config().experts_used);
}

INSTANTIATE_TEST_SUITE_P(MixturesOfExperts, CpuExpertsTest,
                         testing::Values("synth-qwen3moe-256.gguf", "synth-gpt-oss-256.gguf"),
                         [](const auto& info) { return test::parameter_name(info.param); });

// The largest logit difference between two backends' prefills of the same prompt (all rows).
double largest_difference(const Model& model, const CpuBackendOptions& first,
                          const CpuBackendOptions& second, int prompt_length, int stride) {
    std::vector<int32_t> tokens{1};
    for (int i = 1; i < prompt_length; ++i) tokens.push_back(3 + (i * stride) % 500);
    CpuBackend a(model, first), b(model, second);
    auto sequence_a = a.create_sequence(256), sequence_b = b.create_sequence(256);
    const auto x = a.forward(tokens, *sequence_a, LogitRows::All),
               y = b.forward(tokens, *sequence_b, LogitRows::All);
    EXPECT_EQ(x.size(), y.size());
    double worst = 0.0;
    for (size_t i = 0; i < std::min(x.size(), y.size()); ++i)
        worst = std::max(worst, static_cast<double>(std::fabs(x[i] - y[i])));
    return worst;
}

const CpuBackendOptions kDotsOnly{
    .threads = 2, .chunk_sizes = {1, 8, 64}, .panel_threshold = 1000, .blas_threshold = 1000};

// The same against integer dot products alone, on a shared model file.
double difference_from_dots(const char* name, const CpuBackendOptions& options, int prompt_length,
                            int stride) {
    const auto model = Model::load(test::model_path(name));
    return largest_difference(*model, options, kDotsOnly, prompt_length, stride);
}

// The formats without panel kernels take this path for long prompts on every CPU.
TEST(CpuBackend, SgemmPrefillAgreesWithTheIntegerKernels) {
    for (const char* name :
         {"synth-qwen2-256-Q4_K_M.gguf", "synth-llama-256-Q2_K.gguf", "synth-llama-256-Q3_K.gguf",
          "synth-llama-256-Q3_K_M.gguf", "synth-llama-256-IQ4_NL.gguf",
          "synth-llama-256-IQ4_XS.gguf", "synth-llama-256-IQ4_XS-mix.gguf",
          "synth-llama-256-Q3_K.gguf", "synth-llama-256-Q3_K_M.gguf"}) {
        CpuBackendOptions blas = kDotsOnly;
        blas.blas_threshold = 32;
        const double worst = difference_from_dots(name, blas, 200, 53);
        // Float activations against 8-bit ones: the difference llama.cpp's own f32 and native
        // runs show.
        EXPECT_LT(worst, 0.05) << name;
        EXPECT_GT(worst, 0.0) << name;
        RecordProperty(name, std::to_string(worst));
    }
}

// The panel kernels quantise activations per 32 elements like the Q8 dot path (Q4_K's dot path
// quantises per 256); float sums in another order flip a few roundings of the next layer's
// 8-bit activations, which is the spread the fixtures' tolerance allows for.
TEST(CpuBackend, PanelPrefillAgreesWithTheDotKernels) {
    for (const char* name :
         {"synth-llama-256-Q4_0.gguf", "synth-llama-256-Q8_0.gguf", "synth-llama-256-Q4_K_M.gguf",
          "synth-llama-256-Q6_K.gguf", "synth-qwen2-256-Q8_0.gguf", "synth-llama-256-IQ4_NL.gguf",
          "synth-llama-256-IQ4_XS.gguf", "synth-llama-256-IQ4_XS-mix.gguf",
          "synth-llama-256-Q3_K.gguf", "synth-llama-256-Q3_K_M.gguf"}) {
        CpuBackendOptions panel = kDotsOnly;
        panel.panel_threshold = 16;
        const double worst = difference_from_dots(name, panel, 151, 41);
        EXPECT_LT(worst, 0.05) << name;
        RecordProperty(name, std::to_string(worst));
    }
}

// hearth-bench --isa runs the lower kernel levels on a machine that has higher ones: they must
// compute the same model.
TEST(CpuBackend, LowerKernelLevelsGiveTheSameLogits) {
    const auto model = Model::load(test::model_path("synth-llama-256-Q4_0.gguf"));
    CpuBackendOptions best = kDotsOnly;
    best.panel_threshold = 16;
    for (const auto isa : {kernels::Isa::Scalar, kernels::Isa::Avx2}) {
        if (isa > kernels::best_isa()) continue;
        CpuBackendOptions lower = best;
        lower.isa = isa;
        EXPECT_EQ(CpuBackend(*model, lower).name().find(kernels::isa_name(isa)), 5u);
        EXPECT_LT(largest_difference(*model, lower, best, 70, 29), 0.05) << kernels::isa_name(isa);
    }
}

TEST(CpuBackend, RefusesWhatDoesNotFitAndLeavesTheSequenceAsItWas) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    CpuBackend backend(*model, {.threads = 2});
    test::expect_context_limits(backend);
}

}  // namespace
}  // namespace hearth
