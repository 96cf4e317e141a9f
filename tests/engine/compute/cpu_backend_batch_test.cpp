// Batched forward passes over many sequences (what the server's rows share): every row's logits
// are exactly, bit for bit, those its sequence gets alone, whatever runs beside it.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/compute/cpu_backend.h"
#include "engine/compute/kv_cache.h"
#include "tests/support/fixture_check.h"
#include "tests/support/shared_data.h"

namespace hearth {
namespace {

std::vector<int32_t> prompt(int length, int seed) {
    std::vector<int32_t> tokens{1};
    for (int i = 1; i < length; ++i) tokens.push_back(3 + (i * 37 + seed * 101) % 500);
    return tokens;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class CpuBatchTest : public testing::TestWithParam<const char*> {};

// Four sequences: prompts of 1, 9, 70 and 300 tokens in one batch (300 crosses the largest chunk
// and takes the sgemm path, the others the per-token one), then decode steps, one with a
// five-token verification run asking for every row, as speculative decoding does.
TEST_P(CpuBatchTest, EveryRowGetsExactlyItsLogitsAlone) {
    const auto model = Model::load(test::model_path(GetParam()));
    for (const KvCacheType cache : {KvCacheType::F16, KvCacheType::Q8_0}) {
        const CpuBackendOptions options{.threads = 2, .kv_cache = cache};
        CpuBackend batched(*model, options), alone(*model, options);
        const std::vector<int> lengths{1, 9, 70, 300};
        std::vector<std::unique_ptr<Sequence>> rows, references;
        std::vector<std::vector<int32_t>> inputs;
        for (size_t i = 0; i < lengths.size(); ++i) {
            rows.push_back(batched.create_sequence(512));
            references.push_back(alone.create_sequence(512));
            inputs.push_back(prompt(lengths[i], static_cast<int>(i)));
        }
        for (int step = 0; step < 4; ++step) {
            std::vector<BatchRow> batch;
            for (size_t i = 0; i < rows.size(); ++i) {
                const LogitRows wanted = step == 2 && i == 1 ? LogitRows::All : LogitRows::Last;
                batch.push_back({inputs[i], rows[i].get(), wanted});
            }
            const auto logits = batched.forward_batch(batch);
            ASSERT_EQ(logits.size(), rows.size());
            for (size_t i = 0; i < rows.size(); ++i) {
                const auto expected = alone.forward(inputs[i], *references[i], batch[i].rows);
                ASSERT_TRUE(same_bits(logits[i], expected))
                    << "row " << i << " at step " << step << " with the " << to_string(cache)
                    << " cache";
                ASSERT_EQ(rows[i]->size(), references[i]->size());
                // The next input: one token, or five for row 1 before step 2.
                const int next = 3 + (step * 13 + static_cast<int>(i) * 7) % 400;
                inputs[i] = step == 1 && i == 1 ? std::vector<int32_t>{next, 5, 6, 7, 8}
                                                : std::vector<int32_t>{next};
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Families, CpuBatchTest,
                         testing::Values("synth-llama-256-Q4_0.gguf", "synth-llama-256-Q4_K_M.gguf",
                                         "synth-llama-256.gguf", "synth-qwen3-256-Q4_K_M.gguf",
                                         "synth-gemma2-256-Q4_K_M.gguf",
                                         "synth-gemma3-256-Q4_K_M.gguf",
                                         "synth-phi3-256-Q4_K_M.gguf",
                                         "synth-smollm3-256-Q4_K_M.gguf", "synth-qwen3moe-256.gguf",
                                         "synth-qwen3moe-256-Q4_K_M.gguf", "synth-gpt-oss-256.gguf",
                                         "synth-gpt-oss-256-Q4_K_M.gguf"),
                         [](const auto& info) { return test::parameter_name(info.param); });

TEST(CpuBatch, ARowThatDoesNotFitRefusesTheBatchAndChangesNothing) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    CpuBackend backend(*model, {.threads = 2});
    auto roomy = backend.create_sequence(64), tight = backend.create_sequence(8);
    const auto short_prompt = prompt(4, 0), long_prompt = prompt(9, 1);
    const std::vector<BatchRow> batch{{short_prompt, roomy.get()}, {long_prompt, tight.get()}};
    EXPECT_THROW(backend.forward_batch(batch), ContextFullError);
    EXPECT_EQ(roomy->size(), 0);
    EXPECT_EQ(tight->size(), 0);
}

TEST(CpuBatch, TheSameSequenceTwiceIsRefused) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    CpuBackend backend(*model, {.threads = 2});
    auto sequence = backend.create_sequence(64);
    const auto tokens = prompt(4, 0);
    const std::vector<BatchRow> batch{{tokens, sequence.get()}, {tokens, sequence.get()}};
    EXPECT_THROW(backend.forward_batch(batch), std::invalid_argument);
    EXPECT_EQ(sequence->size(), 0);
}

}  // namespace
}  // namespace hearth
