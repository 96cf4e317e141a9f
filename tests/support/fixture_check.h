// Checks a backend against a llama.cpp model fixture (shared/fixtures/models): the logits of the
// fixture's top-k ids at every prompt position, the full last-position logits, and every
// teacher-forced greedy step, with the same top-1 wherever the fixture's gap is not a tie.
#pragma once

#include <QJsonObject>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/model/model.h"

namespace hearth::test {

struct Tolerance {
    double logit;  // largest accepted |ours - fixture|, plus 2e-6 relative
    double tie;    // a top-1/top-2 gap below this may legitimately swap the argmax
};

struct FixtureCounts {
    int positions = 0;
    int greedy_steps = 0;
    int top1_checked = 0;
    int ties = 0;
    double max_difference = 0.0;
};

// The fixtures of the shared models as stored (not the *.f32math float reruns).
std::vector<std::string> native_model_fixtures();

// What a fast backend is held to on a native fixture. Why these numbers: with quantised weights
// llama.cpp rounds activations to 8 bits before each product (our backends round differently, or
// not at all) and keeps an F32 KV cache where ours are F16: the README's 0.05 for quantised files,
// ties under twice llama.cpp's own spread. F32/F16/BF16 weights multiply float activations; the
// F16 KV cache alone moves logits by up to 7e-4 (README, checks.alt_f16kv_fa_auto),
// stories260K's large logits by more (its spread with an F16 cache is 1.3e-2).
Tolerance native_tolerance(const std::string& fixture, const QJsonObject& json);

// Loads the model of native fixture `fixture` ("synth-llama-256-Q8_0"), builds a backend for it
// with `make`, and checks it by native_tolerance.
FixtureCounts check_native_fixture(
    const std::string& fixture, const std::function<std::unique_ptr<Backend>(const Model&)>& make);

// A fixture name as a gtest parameter name ("synth-llama-256-Q8_0" -> "synth_llama_256_Q8_0").
std::string parameter_name(const std::string& fixture);

// Runs every prompt of `fixture` (a name like "synth-llama-256-Q8_0.f32math") through `backend`
// and records gtest failures for any disagreement.
FixtureCounts check_against_fixture(const std::string& fixture, const QJsonObject& json,
                                    Backend& backend, const Tolerance& tolerance);

}  // namespace hearth::test
