// The reference forward pass against llama.cpp's outputs for every shared model, following
// shared/fixtures/models/README.md: logits of the fixture's top-k ids within a tolerance per
// kind of reference, the same top-1 wherever it is not a tie, and teacher-forced greedy steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/model.h"
#include "engine/reference_forward.h"
#include "engine/sampler.h"
#include "tests/support/shared_data.h"

namespace hearth {
namespace {

struct Tolerance {
    double logit;  // largest accepted |ours - fixture| for any recorded logit
    double tie;    // a top-1/top-2 gap below this may legitimately swap the argmax
};

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
// - llama-2-tiny-random's F16 products moved its tiny logits by < 1e-4 (max_internal_spread
//   7.7e-5): 2e-4 [7.2e-5].
Tolerance tolerance_for(const std::string& fixture, const QJsonObject& json) {
    const bool exact = json["reference_kind"].toString() == "f32-math-on-dequantized-weights";
    const auto counts = json["model"].toObject()["tensor_type_counts"].toObject();
    const bool all_f32 = counts.size() == 1 && counts.contains("F32");
    if (exact || all_f32) return {2e-5, 1e-3};
    if (fixture.starts_with("llama-2-tiny-random")) return {2e-4, 1e-3};
    return {0.05, 2.0 * json["checks"].toObject()["max_internal_spread"].toDouble()};
}

struct Counts {
    int positions = 0;
    int greedy_steps = 0;
    int top1_checked = 0;
    int ties_skipped = 0;
    double max_difference = 0.0;
};

class ModelFixtureTest : public testing::TestWithParam<std::string> {
protected:
    // Compares one row of our logits with a fixture entry (ids highest first, their logits).
    void compare_row(const std::vector<float>& ours, const QJsonObject& entry,
                     const std::string& where) {
        const auto ids = test::to_ids(entry["ids"].toArray());
        const auto logits = test::to_floats(entry["logits"].toArray());
        for (size_t i = 0; i < ids.size(); ++i) {
            const double difference = std::abs(ours[ids[i]] - logits[i]);
            const double allowed = m_tolerance.logit + 2e-6 * std::abs(logits[i]);
            m_counts.max_difference = std::max(m_counts.max_difference, difference);
            EXPECT_LE(difference, allowed) << where << " id " << ids[i];
        }
        const int32_t top1 = argmax(ours);
        const double gap = entry["gap"].toDouble();
        if (gap < m_tolerance.tie || entry["ambiguous"].toBool()) {
            ++m_counts.ties_skipped;
            const auto top5_end = ids.begin() + std::min<long>(5, static_cast<long>(ids.size()));
            EXPECT_NE(std::find(ids.begin(), top5_end, top1), top5_end)
                << where << ": top-1 outside top-5";
            return;
        }
        ++m_counts.top1_checked;
        EXPECT_EQ(top1, ids[0]) << where << " (gap " << gap << ")";
    }

    Tolerance m_tolerance{};
    Counts m_counts;
};

TEST_P(ModelFixtureTest, MatchesLlamaCppAtEveryPositionAndGreedyStep) {
    const std::string fixture = GetParam();
    const auto json = test::load_json(test::fixture_path("models/" + fixture + ".json"));
    m_tolerance = tolerance_for(fixture, json);
    const auto model =
        Model::load(test::model_path(json["model"].toObject()["file"].toString().toStdString()));
    const size_t vocab = static_cast<size_t>(model->config().vocab_size);
    ASSERT_EQ(static_cast<int>(vocab), json["hparams"].toObject()["n_vocab"].toInt());
    ReferenceForward forward(*model);

    for (const auto& prompt_value : json["prompts"].toArray()) {
        const auto prompt = prompt_value.toObject();
        const std::string name = fixture + "/" + prompt["name"].toString().toStdString();
        const auto tokens = test::to_ids(prompt["tokens"].toArray());
        const auto generated = test::to_ids(prompt["generated_ids"].toArray());
        KvCache cache = forward.make_cache(static_cast<int>(tokens.size() + generated.size()));
        const auto all_rows = forward.forward(tokens, cache, LogitRows::All);

        const auto top10 = prompt["prompt_top10"].toArray();
        ASSERT_EQ(static_cast<size_t>(top10.size()), tokens.size());
        for (qsizetype pos = 0; pos < top10.size(); ++pos) {
            const std::vector<float> row(all_rows.begin() + pos * vocab,
                                         all_rows.begin() + (pos + 1) * vocab);
            compare_row(row, top10[pos].toObject(), name + " position " + std::to_string(pos));
            ++m_counts.positions;
        }

        std::vector<float> last(all_rows.end() - static_cast<long>(vocab), all_rows.end());
        const auto expected_last = test::to_floats(prompt["last_logits"].toArray());
        ASSERT_EQ(expected_last.size(), vocab);
        for (size_t id = 0; id < vocab; ++id) {
            ASSERT_LE(std::abs(last[id] - expected_last[id]),
                      m_tolerance.logit + 2e-6 * std::abs(expected_last[id]))
                << name << " last logits, id " << id;
        }

        // Teacher-forced greedy: feeding the fixture's tokens makes every step comparable; where
        // our argmax equals the fixture's at every step, free-running greedy is identical too.
        const auto steps = prompt["greedy"].toArray();
        for (qsizetype step = 0; step < steps.size(); ++step) {
            if (step > 0) last = forward.forward(std::span(&generated[step - 1], 1), cache);
            const auto entry = steps[step].toObject();
            compare_row(last, entry, name + " greedy step " + std::to_string(step));
            ++m_counts.greedy_steps;
        }
    }
    std::printf(
        "%s: %d positions, %d greedy steps, %d top-1 checks, %d ties, max |diff| %.3g (tolerance "
        "%.3g)\n",
        fixture.c_str(), m_counts.positions, m_counts.greedy_steps, m_counts.top1_checked,
        m_counts.ties_skipped, m_counts.max_difference, m_tolerance.logit);
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
    // 19 models, 15 of which (those with non-F32 weights) also have an f32math reference.
    EXPECT_EQ(test::model_fixture_names().size(), 34u) << "is ../shared present?";
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

TEST(ReferenceForward, ChunkedPrefillEqualsOneShot) {
    const auto model = Model::load(test::model_path("synth-llama3-256-Q8_0.gguf"));
    ReferenceForward forward(*model);
    const std::vector<int32_t> tokens{1, 400, 33, 21, 8, 500, 61, 62, 63, 64, 3};
    KvCache whole = forward.make_cache(16);
    KvCache chunked = forward.make_cache(16);
    const auto expected = forward.forward(tokens, whole);
    forward.forward(std::span(tokens).subspan(0, 8), chunked);
    const auto actual = forward.forward(std::span(tokens).subspan(8), chunked);
    EXPECT_EQ(actual, expected);
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
        EXPECT_NE(std::string(error.what()).find("context length of 4"), std::string::npos)
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
