// The reference forward pass against llama.cpp's outputs for every shared model, following
// shared/fixtures/models/README.md: logits of the fixture's top-k ids within a tolerance per
// kind of reference, the same top-1 wherever it is not a tie, and teacher-forced greedy steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "engine/compute/backend.h"
#include "engine/compute/reference_backend.h"
#include "engine/generation/sampler.h"
#include "engine/model/model.h"
#include "engine/model/reference_forward.h"
#include "tests/support/fixture_check.h"
#include "tests/support/shared_data.h"
#include "tests/support/unsupported_files.h"

namespace hearth {
namespace {

// Why these numbers (measured maxima in brackets):
// - an F32 file, or an *.f32math reference, is exact maths on the stored weights; llama.cpp's own
//   batch-vs-sequential noise there is < 1e-6. The README expects ~1e-4 from an F32 engine, but a
//   RoPE base off by 1% moves short prompts by only 5e-5, so we hold 2e-5 (plus 2e-6 relative for
//   stories260K's logits of ~20) [7.6e-6 on stories260K, < 1e-6 elsewhere]; ties are the
//   fixture's own ambiguity flag (gap < 1e-3);
// - a llama.cpp-native file with non-F32 weights had its activations rounded (to Q8_0/Q8_K, F16
//   or BF16) before every product, which alone moves logits by up to 0.023 (the f32math files'
//   checks.vs_llama_cpp_native): the README's 0.05 [0.024], and gaps under twice the file's
//   checks.max_internal_spread count as ties, as the README suggests;
// - Gemma files with exact maths: 1e-3 (the README's figure, see tolerance_for) [measured below];
// - gpt-oss files with quantised weights (test::expert_choices_flip): those 8-bit activations can
// also choose
//   other experts than exact maths does, which moves a position by ~0.2 per flipped choice
//   (kExpertFlipAllowance), here for each of the two layers: 0.75 [0.21 on
//   synth-gpt-oss-256-Q4_K_M, 0.69 at one greedy step of synth-gpt-oss-256-MXFP4_MOE, every
//   other row of it under 0.1; the f32math reruns of both files stay under 2e-5];
// - llama-2-tiny-random's F16 products moved its tiny logits by < 1e-4 (max_internal_spread
//   7.7e-5): 2e-4 [7.2e-5].
test::Tolerance tolerance_for(const std::string& fixture, const QJsonObject& json) {
    const bool exact = json["reference_kind"].toString() == "f32-math-on-dequantized-weights";
    const auto counts = json["model"].toObject()["tensor_type_counts"].toObject();
    const bool all_f32 = counts.size() == 1 && counts.contains("F32");
    // Gemma: llama.cpp's GELU rounds its input to F16 and reads a table, which moves its own
    // logits by up to 4e-4 between batch and sequential runs; the README's 1e-3.
    if ((exact || all_f32) && fixture.starts_with("synth-gemma")) return {1e-3, 1e-3};
    if (exact || all_f32) return {2e-5, 1e-3};
    if (fixture.starts_with("llama-2-tiny-random")) return {2e-4, 1e-3};
    // llama.cpp's 8-bit activations can choose other experts than exact maths does, in each
    // layer: room for a flip in each of the two layers of the synthetic MoE files.
    if (test::expert_choices_flip(json)) {
        return {2.5 * test::kExpertFlipAllowance,
                2.0 * json["checks"].toObject()["max_internal_spread"].toDouble(), true};
    }
    return {0.05, 2.0 * json["checks"].toObject()["max_internal_spread"].toDouble()};
}

class ModelFixtureTest : public testing::TestWithParam<std::string> {};

TEST_P(ModelFixtureTest, MatchesLlamaCppAtEveryPositionAndGreedyStep) {
    const std::string fixture = GetParam();
    if (test::model_refused_as_listed(fixture)) return;
    const auto json = test::load_json(test::fixture_path("models/" + fixture + ".json"));
    const auto model =
        Model::load(test::model_path(json["model"].toObject()["file"].toString().toStdString()));
    ASSERT_EQ(model->config().vocab_size, json["hparams"].toObject()["n_vocab"].toInt());
    ReferenceBackend backend(*model);
    const auto counts =
        test::check_against_fixture(fixture, json, backend, tolerance_for(fixture, json));
    EXPECT_GT(counts.positions, 0);
}

INSTANTIATE_TEST_SUITE_P(SharedModels, ModelFixtureTest,
                         testing::ValuesIn(test::model_fixture_names()), [](const auto& info) {
                             std::string name = info.param;
                             std::replace_if(
                                 name.begin(), name.end(), [](char c) { return !std::isalnum(c); },
                                 '_');
                             return name;
                         });

TEST(ModelFixtures, EveryModelHasItsFixtures) {
    int supported = 0;
    for (const auto& name : test::model_fixture_names()) {
        const auto model = test::model_file_of_fixture(name);
        EXPECT_TRUE(std::filesystem::is_regular_file(test::model_path(model))) << name;
        supported += test::find_unsupported(model) == nullptr;
    }
    // The 40 models Hearth runs, 29 of which (those with non-F32 weights) also have an f32math
    // reference.
    EXPECT_GE(supported, 69) << "is ../shared present?";
    for (const auto& item : std::filesystem::directory_iterator(test::shared_dir() / "models")) {
        const auto stem = item.path().stem().string();
        EXPECT_TRUE(
            std::filesystem::is_regular_file(test::fixture_path("models/" + stem + ".json")))
            << item.path();
    }
}

TEST(ReferenceForward, LastRowModeEqualsTheLastOfAllRows) {
    const auto model = Model::load(test::model_path("synth-qwen2-256-Q4_K_M.gguf"));
    ReferenceForward forward(*model);
    const std::vector<int32_t> tokens{1, 42, 99, 7, 300, 12, 5, 77, 260};
    KvCache all_cache = forward.make_cache(16);
    KvCache last_cache = forward.make_cache(16);
    const auto all = forward.forward(tokens, all_cache, LogitRows::All);
    const auto last = forward.forward(tokens, last_cache, LogitRows::Last);
    ASSERT_EQ(last.size(), static_cast<size_t>(model->config().vocab_size));
    EXPECT_TRUE(std::equal(last.begin(), last.end(), all.end() - static_cast<long>(last.size())));
}

// Every family; 50 tokens cross the Gemma files' 32-position windows.
TEST(ReferenceForward, ChunkedPrefillEqualsOneShot) {
    for (const char* name :
         {"synth-llama3-256-Q8_0.gguf", "synth-qwen3-256.gguf", "synth-gemma2-256.gguf",
          "synth-gemma3-256.gguf", "synth-phi3-256.gguf", "synth-smollm3-256.gguf",
          "synth-gpt-oss-256.gguf"}) {
        const auto model = Model::load(test::model_path(name));
        ReferenceForward forward(*model);
        std::vector<int32_t> tokens{1};
        for (int i = 1; i < 50; ++i) tokens.push_back(3 + (i * 41) % 500);
        KvCache whole = forward.make_cache(64);
        KvCache chunked = forward.make_cache(64);
        const auto expected = forward.forward(tokens, whole);
        forward.forward(std::span(tokens).subspan(0, 8), chunked);
        forward.forward(std::span(tokens).subspan(8, 33), chunked);
        const auto actual = forward.forward(std::span(tokens).subspan(41), chunked);
        EXPECT_EQ(actual, expected) << name;
    }
}

TEST(ReferenceForward, GoingPastTheContextIsAClearError) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    ReferenceForward forward(*model);
    KvCache cache = forward.make_cache(4);
    const std::vector<int32_t> tokens{1, 2, 3, 4, 5};
    try {
        forward.forward(tokens, cache);
        FAIL() << "expected ContextFullError";
    } catch (const ContextFullError& error) {
        EXPECT_EQ(error.facts().capacity, 4);
        EXPECT_EQ(error.facts().needed, 5);
        EXPECT_NE(std::string(error.what()).find("context of 4"), std::string::npos)
            << error.what();
    }
    EXPECT_EQ(cache.size(), 0);
}

TEST(ReferenceForward, RefusesTokenIdsOutsideTheVocabulary) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    ReferenceForward forward(*model);
    KvCache cache = forward.make_cache(4);
    const std::vector<int32_t> tokens{1, 512};
    EXPECT_THROW(forward.forward(tokens, cache), std::out_of_range);
}

}  // namespace
}  // namespace hearth
