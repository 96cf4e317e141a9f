// Behaviour every backend shares, checked the same way for each.
#pragma once

#include "engine/compute/backend.h"
#include "engine/model/model.h"

namespace hearth::test {

// On stories260K's `backend` (vocabulary 512): tokens that do not fit a 4-token context, or an id
// outside the vocabulary, are refused and leave the sequence as it was; decode steps that do not
// fit are refused too; after a truncate the sequence runs again.
void expect_context_limits(Backend& backend);

}  // namespace hearth::test
