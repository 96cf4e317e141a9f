#include "engine/runtime/speed_measurement.h"

#include <gtest/gtest.h>

#include "engine/compute/cpu_backend.h"
#include "engine/generation/prefill_planner.h"
#include "tests/support/shared_data.h"

namespace hearth {
namespace {

TEST(SpeedMeasurement, TheSyntheticPromptIsFixedAndInsideTheVocabulary) {
    const auto prompt = speed_test_prompt(512, 512);
    EXPECT_EQ(prompt.size(), 512u);
    EXPECT_EQ(prompt.front(), 1);  // BOS
    EXPECT_EQ(prompt, speed_test_prompt(512, 512));
    for (size_t i = 1; i < prompt.size(); ++i) {
        EXPECT_GE(prompt[i], 3);
        EXPECT_LT(prompt[i], 512);
    }
    EXPECT_EQ(speed_test_prompt(1, 512), std::vector<int32_t>{1});
}

class SpeedMeasurementTest : public testing::Test {
protected:
    SpeedMeasurementTest()
        : m_model(Model::load(test::model_path("stories260K.gguf"))),
          m_backend(*m_model, {.threads = 1}) {}
    int vocab() const { return m_model->config().vocab_size; }

    std::unique_ptr<Model> m_model;
    CpuBackend m_backend;
};

TEST_F(SpeedMeasurementTest, MeasuresBothFiguresWithProgressOverBoth) {
    std::vector<int> seen;
    const auto speed =
        measure_speed(m_backend, vocab(), 100, 20, {.progress = [&](int done, int total) {
                          EXPECT_EQ(total, 120);
                          seen.push_back(done);
                      }});
    EXPECT_EQ(speed.prompt_tokens, 100);
    EXPECT_EQ(speed.generated_tokens, 20);
    EXPECT_GT(speed.prompt_tokens_per_second(), 0.0);
    EXPECT_GT(speed.generation_tokens_per_second(), 0.0);
    ASSERT_FALSE(seen.empty());
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_EQ(seen.back(), 120);
    // The prompt went through the decode loop's forward calls: progress after each.
    const auto calls = group_prefill_steps(plan_prefill(100, 0, m_backend.chunk_sizes()),
                                           m_backend.prefill_batch_tokens());
    EXPECT_EQ(std::count_if(seen.begin(), seen.end(), [](int done) { return done <= 100; }),
              static_cast<long>(calls.size()));
}

TEST_F(SpeedMeasurementTest, GenerationCanStartAfterACachedContext) {
    EXPECT_GT(time_generation(m_backend, vocab(), 8, 300), 0.0);
}

// ppN@dD: the prompt goes into a cache already holding D tokens (its sequence has room for
// both), and the cached part's prefill stops on cancel as the prompt's does.
TEST_F(SpeedMeasurementTest, APromptCanStartAfterACachedContext) {
    int reported = 0;
    EXPECT_GT(time_prompt(m_backend, vocab(), 64, 400,
                          {.progress =
                               [&](int done, int total) {
                                   EXPECT_EQ(total, 64);
                                   reported = done;
                               }}),
              0.0);
    EXPECT_EQ(reported, 64);
    std::atomic<bool> cancel{true};
    EXPECT_THROW(time_prompt(m_backend, vocab(), 8, 300, {.cancel = &cancel}), SpeedTestCancelled);
}

TEST_F(SpeedMeasurementTest, TheCancelFlagStopsIt) {
    std::atomic<bool> cancel{true};
    EXPECT_THROW(time_prompt(m_backend, vocab(), 64, 0, {.cancel = &cancel}), SpeedTestCancelled);
    cancel = false;
    int calls = 0;
    EXPECT_THROW(time_generation(m_backend, vocab(), 50, 0,
                                 {.cancel = &cancel,
                                  .progress =
                                      [&](int, int) {
                                          if (++calls == 5) cancel = true;
                                      }}),
                 SpeedTestCancelled);
    EXPECT_EQ(calls, 5);
}

}  // namespace
}  // namespace hearth
