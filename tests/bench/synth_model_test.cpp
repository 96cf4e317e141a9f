// hearth-synth-model writes models of the benchmark shapes that Hearth loads, tokenizes with and
// runs on the CPU backend: SmolLM-135M at full size, Qwen3-0.6B and Gemma 3 1B with fewer
// blocks (every block is alike; the embedding and vocabulary stay full-size).
#include <gtest/gtest.h>

#include <QProcess>

#include <algorithm>
#include <cmath>

#include "engine/compute/cpu_backend.h"
#include "engine/model/model.h"
#include "engine/text/tokenizer.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "tests/support/tokenizer_cases.h"

namespace hearth {
namespace {

// Runs hearth-synth-model SHAPE TYPE PATH EXTRA...; the file lands in `directory`.
std::filesystem::path synthesize(const test::TempDirectory& directory, const QString& shape,
                                 const QString& type, const QStringList& extra = {}) {
    const auto path = directory.path() / (shape + "-" + type + ".gguf").toStdString();
    QProcess process;
    process.start(QStringLiteral(HEARTH_SYNTH_MODEL_PATH),
                  QStringList{shape, type, QString::fromStdString(path.string())} + extra);
    EXPECT_TRUE(process.waitForFinished(300000));
    EXPECT_EQ(process.exitCode(), 0) << process.readAllStandardError().toStdString();
    return path;
}

// `count` greedy tokens after `prompt` on the CPU backend; every logit must be finite.
std::vector<int32_t> greedy_tokens(const Model& model, const std::vector<int32_t>& prompt,
                                   int count) {
    CpuBackend backend(model, {.threads = 2});
    auto sequence = backend.create_sequence(static_cast<int>(prompt.size()) + count);
    std::vector<int32_t> generated;
    std::vector<int32_t> next = prompt;
    for (int i = 0; i < count; ++i) {
        const auto logits = backend.forward(next, *sequence, LogitRows::Last);
        EXPECT_EQ(logits.size(), static_cast<size_t>(model.config().vocab_size));
        if (!std::all_of(logits.begin(), logits.end(), [](float l) { return std::isfinite(l); })) {
            ADD_FAILURE() << "a logit is not finite after " << i << " tokens";
            break;
        }
        const auto best = std::max_element(logits.begin(), logits.end()) - logits.begin();
        generated.push_back(static_cast<int32_t>(best));
        next = {generated.back()};
    }
    return generated;
}

// The dimensions a shape states, as Hearth reads them back.
struct Dimensions {
    int layers, embedding, heads, kv_heads, head_dim, ffn, vocab;
};

void expect_dimensions(const ModelConfig& config, const Dimensions& expected) {
    EXPECT_EQ(config.layer_count, expected.layers);
    EXPECT_EQ(config.embedding_length, expected.embedding);
    EXPECT_EQ(config.head_count, expected.heads);
    EXPECT_EQ(config.kv_head_count, expected.kv_heads);
    EXPECT_EQ(config.head_dim, expected.head_dim);
    EXPECT_EQ(config.feed_forward_length, expected.ffn);
    EXPECT_EQ(config.vocab_size, expected.vocab);
}

TEST(SynthModel, WritesALoadableSmolLmShapedQ4KMModel) {
    const test::TempDirectory directory;
    const auto model = Model::load(synthesize(directory, "smollm-135m", "Q4_K_M"));
    expect_dimensions(model->config(), {30, 576, 9, 3, 64, 1536, 32000});
    // Rows of 576 are not whole k-quant super-blocks: Q4_K falls back to Q5_0 as llama-quantize
    // does. ffn_down rows (1536) are, and follow the Q4_K_M recipe: Q6_K in the first and last
    // eighth and every third layer between.
    EXPECT_EQ(model->weights().layers[0].query.type, TensorType::Q5_0);
    EXPECT_EQ(model->weights().layers[1].down.type, TensorType::Q6_K);
    EXPECT_EQ(model->weights().layers[4].down.type, TensorType::Q4_K);
    EXPECT_EQ(model->weights().layers[5].down.type, TensorType::Q6_K);
    EXPECT_EQ(model->weights().layers[29].down.type, TensorType::Q6_K);
    EXPECT_EQ(greedy_tokens(*model, {1, 500, 9000}, 1).size(), 1u);
}

TEST(SynthModel, WritesAQwen3ShapedModelWithTheQwen2Vocabulary) {
    const test::TempDirectory directory;
    const auto vocabulary = test::fixture_path("tokenizer/ggml-vocab-qwen2.gguf");
    const auto model = Model::load(
        synthesize(directory, "qwen3-0.6b", "Q4_K_M",
                   {"--layers", "2", "--vocab", QString::fromStdString(vocabulary.string())}));
    const auto& config = model->config();
    EXPECT_EQ(config.architecture, Architecture::Qwen3);
    expect_dimensions(config, {2, 1024, 16, 8, 128, 3072, 151936});
    EXPECT_EQ(config.query_dim(), 2048);
    EXPECT_EQ(config.context_length, 40960);
    EXPECT_EQ(config.rope.base, 1e6);
    EXPECT_EQ(config.rope.style, RopeStyle::Neox);
    EXPECT_FLOAT_EQ(config.rms_epsilon, 1e-6f);
    EXPECT_TRUE(config.tied_embeddings);
    EXPECT_TRUE(config.query_key_norm);
    const auto& weights = model->weights();
    EXPECT_EQ(weights.layers[0].query_norm.size(), 128u);
    // Q4_K_M: the tied embedding is the output matrix (Q6_K); the last of two layers has more bits.
    EXPECT_EQ(weights.token_embedding.type, TensorType::Q6_K);
    EXPECT_EQ(weights.layers[0].query.type, TensorType::Q4_K);
    EXPECT_EQ(weights.layers[0].value.type, TensorType::Q4_K);
    EXPECT_EQ(weights.layers[1].value.type, TensorType::Q6_K);
    EXPECT_EQ(weights.layers[1].down.type, TensorType::Q6_K);

    // The copied vocabulary tokenizes every fixture case as llama.cpp does.
    const auto tokenizer = make_tokenizer(model->file());
    for (const auto& test_case : test::load_tokenizer_cases(vocabulary)) {
        EXPECT_EQ(tokenizer->encode(test_case.text, {.add_special = false}), test_case.ids)
            << "'" << test_case.text << "'";
    }
    const auto prompt = tokenizer->encode("Hello, world", {});
    EXPECT_EQ(greedy_tokens(*model, prompt, 3).size(), 3u);
}

// Qwen3-30B-A3B's layer with 16 of its 128 experts (8 still used per token) and GPT-2's smaller
// vocabulary, to stay quick: Hearth reads it as llama.cpp's files (stacked experts, the router
// in F32, ffn_down_exps with more bits in the last layer, as llama-quantize's Q4_K_M does) and
// runs it.
TEST(SynthModel, WritesAQwen3MoeShapedModelHearthRuns) {
    const test::TempDirectory directory;
    const auto vocabulary = test::fixture_path("tokenizer/ggml-vocab-gpt-2.gguf");
    const auto model =
        Model::load(synthesize(directory, "qwen3moe-30b-a3b", "Q4_K_M",
                               {"--layers", "1", "--experts", "16", "--vocab-size", "50257",
                                "--vocab", QString::fromStdString(vocabulary.string())}));
    const auto& config = model->config();
    EXPECT_EQ(config.architecture, Architecture::Qwen3Moe);
    expect_dimensions(config, {1, 2048, 32, 4, 128, 768, 50257});
    EXPECT_EQ(config.expert_count, 16);
    EXPECT_EQ(config.experts_used, 8);
    EXPECT_EQ(config.rope.base, 1e6);
    EXPECT_FALSE(config.tied_embeddings);
    const auto& layer = model->weights().layers[0];
    EXPECT_EQ(layer.router.type, TensorType::F32);
    EXPECT_EQ(layer.expert_gate.type, TensorType::Q4_K);
    EXPECT_EQ(layer.expert_gate.rows, 16 * 768);
    EXPECT_EQ(layer.expert_down.type, TensorType::Q6_K);
    EXPECT_EQ(model->weights().output.type, TensorType::Q6_K);
    const auto tokenizer = make_tokenizer(model->file());
    EXPECT_EQ(greedy_tokens(*model, tokenizer->encode("Hello, world", {}), 2).size(), 2u);
}

// Llama 3's 128,256 tokens stand in for a vocabulary shorter than the embedding: llama.cpp wants
// one token per row, so the tool pads as Hugging Face conversion does.
TEST(SynthModel, PadsAShorterVocabularyWithUnusedTokens) {
    const test::TempDirectory directory;
    const auto vocabulary = test::fixture_path("tokenizer/ggml-vocab-llama-bpe.gguf");
    const auto model = Model::load(
        synthesize(directory, "qwen3-0.6b", "Q4_0",
                   {"--layers", "1", "--vocab", QString::fromStdString(vocabulary.string())}));
    const auto tokenizer = make_tokenizer(model->file());
    const auto& padded = tokenizer->vocabulary();
    ASSERT_EQ(padded.size(), 151936);
    EXPECT_EQ(padded.tokens[128256], "[PAD128256]");
    EXPECT_EQ(padded.kinds[151935], TokenKind::Unused);
    EXPECT_EQ(padded.merges.size(), 280147u);
    const auto cases = test::load_tokenizer_cases(vocabulary);
    for (const auto& test_case : cases) {
        EXPECT_EQ(tokenizer->encode(test_case.text, {.add_special = false}), test_case.ids)
            << "'" << test_case.text << "'";
    }
}

TEST(SynthModel, WritesAGemma3ShapedModelWithASyntheticSentencePieceVocabulary) {
    const test::TempDirectory directory;
    // Six layers: five sliding-window ones and a global one, Gemma 3's pattern.
    const auto model = Model::load(synthesize(directory, "gemma3-1b", "Q4_K_M", {"--layers", "6"}));
    const auto& config = model->config();
    EXPECT_EQ(config.architecture, Architecture::Gemma3);
    expect_dimensions(config, {6, 1152, 4, 1, 256, 6912, 262144});
    EXPECT_EQ(config.context_length, 32768);
    EXPECT_EQ(config.rope.base, 1e6);
    EXPECT_EQ(config.local_rope.base, 10000.0);
    EXPECT_FLOAT_EQ(config.rms_epsilon, 1e-6f);
    EXPECT_TRUE(config.tied_embeddings);
    EXPECT_TRUE(config.post_norms);
    EXPECT_EQ(config.activation, Activation::GeluTanh);
    ASSERT_EQ(config.layers.size(), 6u);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(config.layers[i].window, 512) << i;
    EXPECT_EQ(config.layers[5].window, 0);
    // Rows of 1152 are not whole super-blocks: Q4_K falls back to Q5_0 and Q6_K to Q8_0, the
    // tied embedding (the output matrix) included; attn_output (1024) and ffn_down (6912) are.
    const auto& weights = model->weights();
    EXPECT_EQ(weights.token_embedding.type, TensorType::Q8_0);
    EXPECT_EQ(weights.layers[0].query.type, TensorType::Q5_0);
    EXPECT_EQ(weights.layers[0].value.type, TensorType::Q5_0);
    EXPECT_EQ(weights.layers[2].value.type, TensorType::Q8_0);
    EXPECT_EQ(weights.layers[0].attention_output.type, TensorType::Q4_K);
    EXPECT_EQ(weights.layers[0].down.type, TensorType::Q4_K);
    EXPECT_EQ(weights.layers[5].down.type, TensorType::Q6_K);

    const auto tokenizer = make_tokenizer(model->file());
    EXPECT_EQ(tokenizer->vocabulary().size(), 262144);
    EXPECT_TRUE(tokenizer->is_end_of_generation(1));  // <eos>
    EXPECT_TRUE(tokenizer->is_end_of_generation(5));  // <end_of_turn>
    // Ids as llama-tokenize (b10573) gives them for the same file.
    const std::string text = "<start_of_turn>user\nHello, world! 42 caf\xC3\xA9<end_of_turn>";
    const auto ids = tokenizer->encode(text, {.add_special = true, .parse_special = true});
    const std::vector<int32_t> llama_cpp_ids{2,    4,   1528, 694, 16,   341, 193036, 285, 32309,
                                             1030, 263, 302,  297, 4517, 201, 175,    5};
    ASSERT_EQ(ids, llama_cpp_ids);
    EXPECT_EQ(tokenizer->decode(std::vector<int32_t>(ids.begin() + 1, ids.end()), true), text);
    EXPECT_EQ(greedy_tokens(*model, ids, 3).size(), 3u);
}

}  // namespace
}  // namespace hearth
