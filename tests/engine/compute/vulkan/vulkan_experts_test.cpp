// Mixture-of-experts layers on the Vulkan backend (Mesa's lavapipe here): routing on the device
// and the grouped expert products give the same rows whatever the prompt's chunking, whatever
// pieces the experts are uploaded in, and what the CPU backend computes; the fixtures themselves
// are checked with every other architecture's in vulkan_backend_test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/compute/cpu_backend.h"
#include "engine/compute/vulkan/vulkan_backend.h"
#include "tests/support/fixture_check.h"
#include "tests/support/requests.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

VulkanBackendOptions on_lavapipe(VulkanBackendOptions options = {}) {
    options.allow_cpu_device = true;
    return options;
}

// Every row's logits of a prefill of `tokens`.
std::vector<float> all_rows(Backend& backend, const std::vector<int32_t>& tokens) {
    auto sequence = backend.create_sequence(256);
    return backend.forward(tokens, *sequence, LogitRows::All);
}

double largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    double largest = 0.0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        largest = std::max(largest, static_cast<double>(std::fabs(a[i] - b[i])));
    return largest;
}

class VulkanExpertsTest : public testing::TestWithParam<const char*> {
protected:
    void SetUp() override { m_model = Model::load(test::model_path(GetParam())); }

    std::unique_ptr<Model> m_model;
    // 73 tokens: a step of 64 holds 128 (token, expert) pairs, several tiles per expert.
    std::vector<int32_t> m_prompt = test::salted_prompt(73, 7);
};

// Steps of 64, 8 and 1 token (73 = 64 + 8 + 1) group other pairs into tiles than single tokens
// do; every row is the same, since a token's experts are summed in routing order whichever
// tiles ran them.
TEST_P(VulkanExpertsTest, PrefillInAnyChunkingEqualsTokenByToken) {
    VulkanBackend single(*m_model, on_lavapipe({.chunk_sizes = {1}}));
    const auto expected = all_rows(single, m_prompt);
    VulkanBackend chunked(*m_model, on_lavapipe({.chunk_sizes = {1, 8, 64}}));
    EXPECT_LT(largest_difference(all_rows(chunked, m_prompt), expected), 1e-5);
}

// Stacked experts uploaded one expert per buffer (the pieces a large model's experts take on a
// device with a small storage-buffer range) compute what one buffer does.
TEST_P(VulkanExpertsTest, ExpertsInPiecesGiveTheSameLogits) {
    // The largest expert of any stacked tensor (the Q4_K_M file's Q6_K down of layer 1).
    size_t expert_bytes = 0;
    for (const auto& layer : m_model->weights().layers) {
        for (const auto* w : {&layer.expert_gate, &layer.expert_up, &layer.expert_down}) {
            expert_bytes =
                std::max(expert_bytes, static_cast<size_t>(w->rows) * w->row_bytes /
                                           static_cast<size_t>(m_model->config().expert_count));
        }
    }
    VulkanBackend whole(*m_model, on_lavapipe());
    VulkanBackend pieces(*m_model, on_lavapipe({.max_piece_bytes = expert_bytes + 64}));
    const std::vector<int32_t> prompt(m_prompt.begin(), m_prompt.begin() + 40);
    EXPECT_EQ(largest_difference(all_rows(pieces, prompt), all_rows(whole, prompt)), 0.0);
}

// The CPU backend routes and computes on the host; both choose the same experts at every row
// (the fixtures' router margins are at least 2.1e-4), so the rows agree as dense models' do.
// F32 weights only: with quantised ones the CPU rounds activations to 8 bits before each
// product, which moves a close router decision now and then. gpt-oss's 150 tokens cross its
// sliding window (sinks, biases and the clamped gate on both sides).
TEST(VulkanExperts, EveryRowAgreesWithTheCpuBackend) {
    for (const char* name : {"synth-qwen3moe-256.gguf", "synth-gpt-oss-256.gguf"}) {
        const auto model = Model::load(test::model_path(name));
        const auto prompt = test::salted_prompt(150, 7);
        VulkanBackend vulkan(*model, on_lavapipe());
        CpuBackend cpu(*model, {.threads = 2});
        const double difference =
            largest_difference(all_rows(vulkan, prompt), all_rows(cpu, prompt));
        std::printf("%s: largest |vulkan - cpu| over %zu rows: %.3g\n", name, prompt.size(),
                    difference);
        EXPECT_LT(difference, 1e-4) << name;
    }
}

// The bytes of F32 model `name` with expert `expert` of layer 0 (its slices of the three stacked
// tensors) overwritten by NaN, in place in a copy of the file.
std::vector<std::byte> with_nan_expert(const Model& model, const std::string& name, int expert) {
    auto bytes = test::read_bytes(test::model_path(name));
    const auto experts = static_cast<size_t>(model.config().expert_count);
    for (const auto& tensor : model.file().tensors()) {
        if (!tensor.name.starts_with("blk.0.ffn_") || !tensor.name.ends_with("_exps.weight"))
            continue;
        const size_t slice = tensor.bytes / experts;
        const size_t start = model.file().data_offset() + tensor.offset + expert * slice;
        const std::vector<float> nan(slice / sizeof(float),
                                     std::numeric_limits<float>::quiet_NaN());
        std::memcpy(bytes.data() + start, nan.data(), slice);
    }
    return bytes;
}

// A decode step reads the router, then only the experts it chose: with one expert's weights
// made NaN, the token's logits are bit for bit the clean file's when that expert was not chosen,
// and NaN when it was. Four experts with two used: two of the four go unread.
TEST(VulkanExperts, DecodeReadsOnlyTheChosenExperts) {
    const std::string name = "synth-qwen3moe-256.gguf";
    const auto model = Model::load(test::model_path(name));
    const auto decode = [](const Model& weights) {
        VulkanBackend backend(weights, on_lavapipe());
        auto sequence = backend.create_sequence(4);
        const std::vector<int32_t> token{1};
        return backend.forward(token, *sequence, LogitRows::Last);
    };
    const auto clean = decode(*model);
    const test::TempDirectory directory;
    const int experts = model->config().expert_count;
    std::vector<int> read;  // the experts whose NaN reached the logits
    for (int expert = 0; expert < experts; ++expert) {
        const auto path = directory.write("expert" + std::to_string(expert) + ".gguf",
                                          with_nan_expert(*model, name, expert));
        const auto poisoned = decode(*Model::load(path));
        ASSERT_EQ(poisoned.size(), clean.size());
        if (std::memcmp(poisoned.data(), clean.data(), clean.size() * sizeof(float)) != 0) {
            read.push_back(expert);
            EXPECT_TRUE(std::isnan(poisoned.front())) << "expert " << expert << " was read";
        }
    }
    EXPECT_EQ(static_cast<int>(read.size()), model->config().experts_used)
        << "experts read: " << testing::PrintToString(read);
}

INSTANTIATE_TEST_SUITE_P(Files, VulkanExpertsTest,
                         testing::Values("synth-qwen3moe-256.gguf",
                                         "synth-qwen3moe-256-Q4_K_M.gguf",
                                         "synth-gpt-oss-256-MXFP4_MOE.gguf"),
                         [](const auto& info) { return test::parameter_name(info.param); });

}  // namespace
}  // namespace hearth
