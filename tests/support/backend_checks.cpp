#include "tests/support/backend_checks.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "engine/compute/kv_cache.h"
#include "engine/generation/greedy_picker.h"

namespace hearth::test {

void expect_context_limits(Backend& backend) {
    auto sequence = backend.create_sequence(4);
    const std::vector<int32_t> three{1, 403, 407}, two{261, 378};
    backend.forward(three, *sequence, LogitRows::Last);
    EXPECT_THROW(backend.forward(two, *sequence, LogitRows::Last), ContextFullError);
    EXPECT_EQ(sequence->size(), 3);
    const std::vector<int32_t> bad{9999};
    EXPECT_THROW(backend.forward(bad, *sequence, LogitRows::Last), std::out_of_range);
    GreedyPicker picker;
    EXPECT_THROW(backend.decode(*sequence, 403, 2, picker), ContextFullError);
    sequence->truncate(1);
    EXPECT_EQ(backend.forward(two, *sequence, LogitRows::Last).size(), 512u);
}

}  // namespace hearth::test
