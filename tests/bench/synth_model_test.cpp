// hearth-synth-model writes a full-size SmolLM-135M-shaped model that loads and runs.
#include <gtest/gtest.h>

#include <QProcess>

#include <cmath>

#include "engine/compute/cpu_backend.h"
#include "engine/model/model.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

TEST(SynthModel, WritesALoadableSmolLmShapedQ4KMModel) {
    const test::TempDirectory directory;
    const auto path = directory.path() / "smollm.gguf";
    QProcess process;
    process.start(QStringLiteral(HEARTH_SYNTH_MODEL_PATH),
                  {"smollm-135m", "Q4_K_M", QString::fromStdString(path.string())});
    ASSERT_TRUE(process.waitForFinished(300000));
    ASSERT_EQ(process.exitCode(), 0) << process.readAllStandardError().toStdString();

    const auto model = Model::load(path);
    const auto& config = model->config();
    EXPECT_EQ(config.layer_count, 30);
    EXPECT_EQ(config.embedding_length, 576);
    EXPECT_EQ(config.head_count, 9);
    EXPECT_EQ(config.kv_head_count, 3);
    EXPECT_EQ(config.feed_forward_length, 1536);
    EXPECT_EQ(config.vocab_size, 32000);
    // Rows of 576 are not whole k-quant super-blocks: Q4_K falls back to Q5_0 as llama-quantize
    // does. ffn_down rows (1536) are, and follow the Q4_K_M recipe: Q6_K in the first and last
    // eighth and every third layer between.
    EXPECT_EQ(model->weights().layers[0].query.type, TensorType::Q5_0);
    EXPECT_EQ(model->weights().layers[1].down.type, TensorType::Q6_K);
    EXPECT_EQ(model->weights().layers[4].down.type, TensorType::Q4_K);
    EXPECT_EQ(model->weights().layers[5].down.type, TensorType::Q6_K);
    EXPECT_EQ(model->weights().layers[29].down.type, TensorType::Q6_K);

    CpuBackend backend(*model, {.threads = 2});
    auto sequence = backend.create_sequence(8);
    const std::vector<int32_t> tokens{1, 500, 9000};
    const auto logits = backend.forward(tokens, *sequence, LogitRows::Last);
    ASSERT_EQ(logits.size(), 32000u);
    for (const float logit : logits) ASSERT_TRUE(std::isfinite(logit));
}

}  // namespace
}  // namespace hearth
