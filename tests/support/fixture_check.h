// Checks a backend against a llama.cpp model fixture (shared/fixtures/models): the logits of the
// fixture's top-k ids at every prompt position, the full last-position logits, and every
// teacher-forced greedy step, with the same top-1 wherever the fixture's gap is not a tie.
#pragma once

#include <QJsonObject>

#include <string>

#include "engine/backend.h"

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

// Runs every prompt of `fixture` (a name like "synth-llama-256-Q8_0.f32math") through `backend`
// and records gtest failures for any disagreement.
FixtureCounts check_against_fixture(const std::string& fixture, const QJsonObject& json,
                                    Backend& backend, const Tolerance& tolerance);

}  // namespace hearth::test
