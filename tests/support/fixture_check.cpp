#include "tests/support/fixture_check.h"

#include <gtest/gtest.h>

#include <QJsonArray>

#include <algorithm>
#include <cmath>

#include "engine/generation/sampler.h"
#include "engine/model/model.h"
#include "tests/support/shared_data.h"

namespace hearth::test {
namespace {

void compare_row(const std::vector<float>& ours, const QJsonObject& entry, const std::string& where,
                 const Tolerance& tolerance, FixtureCounts& counts) {
    const auto ids = to_ids(entry["ids"].toArray());
    const auto logits = to_floats(entry["logits"].toArray());
    for (size_t i = 0; i < ids.size(); ++i) {
        const double difference = std::abs(ours[ids[i]] - logits[i]);
        counts.max_difference = std::max(counts.max_difference, difference);
        EXPECT_LE(difference, tolerance.logit + 2e-6 * std::abs(logits[i]))
            << where << " id " << ids[i];
    }
    const int32_t top1 = argmax(ours);
    const double gap = entry["gap"].toDouble();
    if (gap < tolerance.tie || entry["ambiguous"].toBool()) {
        ++counts.ties;
        // Ours may be any of the fixture's top 5, or any id that beats the fixture's top-1 by no
        // more than both may move (a flipped expert choice reorders more than the first few).
        const auto top5_end = ids.begin() + std::min<long>(5, static_cast<long>(ids.size()));
        const bool top5 = std::find(ids.begin(), top5_end, top1) != top5_end;
        const bool within_reach =
            tolerance.experts_reorder && ours[top1] - ours[ids[0]] <= 2 * tolerance.logit;
        EXPECT_TRUE(top5 || within_reach)
            << where << ": top-1 outside the top-5, and past the fixture's by more than twice the "
            << "tolerance";
        return;
    }
    ++counts.top1_checked;
    EXPECT_EQ(top1, ids[0]) << where << " (gap " << gap << ")";
}

}  // namespace

FixtureCounts check_against_fixture(const std::string& fixture, const QJsonObject& json,
                                    Backend& backend, const Tolerance& tolerance) {
    FixtureCounts counts;
    const size_t vocab = static_cast<size_t>(json["hparams"].toObject()["n_vocab"].toInt());
    for (const auto& prompt_value : json["prompts"].toArray()) {
        const auto prompt = prompt_value.toObject();
        const std::string name =
            fixture + "/" + prompt["name"].toString().toStdString() + " on " + backend.name();
        const auto tokens = to_ids(prompt["tokens"].toArray());
        const auto generated = to_ids(prompt["generated_ids"].toArray());
        auto sequence = backend.create_sequence(static_cast<int>(tokens.size() + generated.size()));
        const auto all_rows = backend.forward(tokens, *sequence, LogitRows::All);
        const auto top10 = prompt["prompt_top10"].toArray();
        EXPECT_EQ(static_cast<size_t>(top10.size()), tokens.size());
        EXPECT_EQ(all_rows.size(), tokens.size() * vocab);
        for (qsizetype pos = 0; pos < top10.size(); ++pos) {
            const std::vector<float> row(all_rows.begin() + pos * vocab,
                                         all_rows.begin() + (pos + 1) * vocab);
            compare_row(row, top10[pos].toObject(), name + " position " + std::to_string(pos),
                        tolerance, counts);
            ++counts.positions;
        }
        std::vector<float> last(all_rows.end() - static_cast<long>(vocab), all_rows.end());
        const auto expected_last = to_floats(prompt["last_logits"].toArray());
        for (size_t id = 0; id < vocab; ++id) {
            EXPECT_LE(std::abs(last[id] - expected_last[id]),
                      tolerance.logit + 2e-6 * std::abs(expected_last[id]))
                << name << " last logits, id " << id;
        }
        // Teacher-forced greedy: where our argmax equals the fixture's at every step, a
        // free-running greedy decode produces exactly the fixture's continuation.
        const auto steps = prompt["greedy"].toArray();
        for (qsizetype step = 0; step < steps.size(); ++step) {
            if (step > 0)
                last =
                    backend.forward(std::span(&generated[step - 1], 1), *sequence, LogitRows::Last);
            compare_row(last, steps[step].toObject(), name + " greedy step " + std::to_string(step),
                        tolerance, counts);
            ++counts.greedy_steps;
        }
    }
    std::printf(
        "%s on %s: %d positions, %d greedy steps, %d top-1 checks, %d ties, max |diff| %.3g "
        "(tolerance %.3g)\n",
        fixture.c_str(), backend.name().c_str(), counts.positions, counts.greedy_steps,
        counts.top1_checked, counts.ties, counts.max_difference, tolerance.logit);
    return counts;
}

std::vector<std::string> native_model_fixtures() {
    std::vector<std::string> names;
    for (const auto& name : model_fixture_names()) {
        if (!name.ends_with(".f32math")) names.push_back(name);
    }
    return names;
}

bool mixture_of_experts(const QJsonObject& json) {
    const auto metadata = json["model"].toObject()["metadata"].toObject();
    return metadata.contains(metadata["general.architecture"].toString() + ".expert_count");
}

bool expert_choices_flip(const QJsonObject& json) {
    const auto metadata = json["model"].toObject()["metadata"].toObject();
    return metadata["general.architecture"].toString() == "gpt-oss";
}

Tolerance native_tolerance(const std::string& fixture, const QJsonObject& json, bool q8_0_cache,
                           bool exact_activations) {
    const double spread = json["checks"].toObject()["max_internal_spread"].toDouble();
    if (fixture == "stories260K") return {2e-2, 2 * spread};
    const auto counts = json["model"].toObject()["tensor_type_counts"].toObject();
    const QStringList types = counts.keys();
    const bool float_weights = std::all_of(types.begin(), types.end(), [](const QString& type) {
        return type == "F32" || type == "F16" || type == "BF16";
    });
    // The fixtures were made with an F16 cache: a Q8_0 cache adds its own rounding on top of the
    // weights', the same 0.015 allowance for float and quantised weights (the gemma3 Q4_K_M file
    // reaches 0.0507 with it on the AVX-512 VNNI kernels, 0.0492 with an F16 cache).
    constexpr double kQ8_0CacheAllowance = 0.015;
    // A mixture of experts routes each token to its top experts, a discrete choice: an 8-bit
    // cache, or llama.cpp's 8-bit activations where ours differ, can move a close router
    // decision to the next expert (kExpertFlipAllowance). With the 8-bit cache such a flip also
    // swapped a top-1 whose gap was 0.062 (synth-gpt-oss-256), so gaps under the allowance are
    // ties there.
    // Room for a flip in each of the synthetic files' two layers (as the reference pass has).
    if (expert_choices_flip(json) && exact_activations && !float_weights) {
        return {2.5 * kExpertFlipAllowance, 2 * spread, true};
    }
    if (expert_choices_flip(json) && (q8_0_cache || !float_weights)) {
        return {kExpertFlipAllowance, q8_0_cache ? kExpertFlipAllowance : 2 * spread, true};
    }
    // The README's ~0.2 for one flipped choice (measured 0.13 on synth-qwen3moe-256).
    if (mixture_of_experts(json) && float_weights && q8_0_cache) {
        return {0.2, std::max(2e-2, 2 * spread)};
    }
    if (float_weights && q8_0_cache)
        return {5e-3 + kQ8_0CacheAllowance, std::max(2e-2, 2 * spread)};
    if (float_weights) return {5e-3, std::max(1e-3, 2 * spread)};
    return {0.05 + (q8_0_cache ? kQ8_0CacheAllowance : 0.0), 2 * spread};
}

FixtureCounts check_native_fixture(
    const std::string& fixture, const std::function<std::unique_ptr<Backend>(const Model&)>& make,
    bool q8_0_cache, bool exact_activations, const MapOptions& load) {
    const auto json = load_json(fixture_path("models/" + fixture + ".json"));
    const auto model =
        Model::load(model_path(json["model"].toObject()["file"].toString().toStdString()), load);
    const auto backend = make(*model);
    return check_against_fixture(fixture, json, *backend,
                                 native_tolerance(fixture, json, q8_0_cache, exact_activations));
}

std::vector<ForcedStep> teacher_forced_steps(const std::string& fixture, const Model& model,
                                             Backend& baseline, Backend& candidate) {
    const auto json = load_json(fixture_path("models/" + fixture + ".json"));
    const size_t vocab = static_cast<size_t>(model.config().vocab_size);
    std::vector<ForcedStep> forced;
    for (const auto& prompt_value : json["prompts"].toArray()) {
        const auto prompt = prompt_value.toObject();
        auto tokens = to_ids(prompt["tokens"].toArray());
        // The fixture's rows: every prompt position, then each greedy step after the first (the
        // first is the prompt's last position).
        auto entries = prompt["prompt_top10"].toArray();
        const auto generated = to_ids(prompt["generated_ids"].toArray());
        const auto steps = prompt["greedy"].toArray();
        for (qsizetype step = 1; step < steps.size(); ++step) {
            tokens.push_back(generated[step - 1]);
            entries.append(steps[step]);
        }
        const auto run = [&](Backend& backend) {
            auto sequence = backend.create_sequence(static_cast<int>(tokens.size()));
            return backend.forward(tokens, *sequence, LogitRows::All);
        };
        const auto expected = run(baseline), ours = run(candidate);
        for (qsizetype row = 0; row < entries.size(); ++row) {
            const auto entry = entries[row].toObject();
            const auto at = [&](const std::vector<float>& logits) {
                return argmax(std::span(logits).subspan(static_cast<size_t>(row) * vocab, vocab));
            };
            forced.push_back(
                {entry["gap"].toDouble(), entry["ambiguous"].toBool(), at(expected) == at(ours)});
        }
    }
    return forced;
}

Agreement top1_agreement(const std::vector<ForcedStep>& steps, double tie) {
    Agreement agreement;
    for (const ForcedStep& step : steps) {
        if (step.gap < tie || step.ambiguous) continue;
        ++agreement.steps;
        if (step.agreed) ++agreement.agreed;
    }
    return agreement;
}

void expect_q8_0_cache_holds(
    const std::string& fixture,
    const std::function<std::unique_ptr<Backend>(const Model&, KvCacheType)>& make) {
    const auto counts = check_native_fixture(
        fixture, [&](const Model& model) { return make(model, KvCacheType::Q8_0); }, true);
    EXPECT_GT(counts.top1_checked, 0);
    const auto json = load_json(fixture_path("models/" + fixture + ".json"));
    const auto model =
        Model::load(model_path(json["model"].toObject()["file"].toString().toStdString()));
    const auto f16 = make(*model, KvCacheType::F16), q8_0 = make(*model, KvCacheType::Q8_0);
    const auto steps = teacher_forced_steps(fixture, *model, *f16, *q8_0);
    const auto agreement = top1_agreement(steps, native_tolerance(fixture, json, true).tie);
    const auto strict = top1_agreement(steps, native_tolerance(fixture, json).tie);
    std::printf(
        "%s: the Q8_0 cache (%s) agrees with F16 at %d of %d steps (%.2f%%); %.2f%% of %d by the "
        "F16 tie rule\n",
        fixture.c_str(), q8_0->name().c_str(), agreement.agreed, agreement.steps,
        100.0 * agreement.fraction(), 100.0 * strict.fraction(), strict.steps);
    EXPECT_GT(agreement.steps, 0);
    EXPECT_GE(agreement.fraction(), 0.99) << fixture;
}

std::string parameter_name(const std::string& fixture) {
    std::string name = fixture;
    for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
}

}  // namespace hearth::test
