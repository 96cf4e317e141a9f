// Positions and attention: RoPE, the KV cache's store (rotation and packing into halves) and
// attention over that cache (windows, soft-caps, rings, sinks, heads of 256) against the CPU's
// definitions, on a real Vulkan device (Mesa's lavapipe here).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/compute/vulkan/shader_set.h"
#include "engine/model/model.h"
#include "engine/model/rope.h"
#include "kernels/half.h"
#include "shaders/attention_256_spv.h"
#include "shaders/attention_spv.h"
#include "shaders/kv_store_spv.h"
#include "shaders/rope_spv.h"
#include "tests/engine/compute/vulkan/shader_fixture.h"
#include "tests/support/shared_data.h"

namespace hearth::vulkan {
namespace {

class ShaderTest : public ShaderFixture {
public:
    // Runs an attention variant over F16 keys and values, with sinks (one per head, read with
    // push.sinks); the attended rows.
    std::vector<float> run_attention(std::span<const uint32_t> spirv,
                                     const std::vector<float>& query,
                                     const std::vector<uint16_t>& keys,
                                     const std::vector<uint16_t>& values,
                                     const std::vector<float>& sinks, const AttentionPush& push) {
        auto q = buffer_with(query), k = buffer_with(keys), v = buffer_with(values);
        auto out = buffer_with(nullptr, query.size() * 4), s = buffer_with(sinks);
        run(spirv, {q.get(), k.get(), v.get(), out.get(), s.get()}, push, push.tokens * push.heads);
        return read(*out, query.size());
    }
};

// (cos, sin) per (position, pair), as the backend's KV cache holds them: Rope::angles, the
// magnitude included.
std::vector<float> angle_table(const Rope& rope, uint32_t positions) {
    std::vector<float> table, cosines(rope.pairs()), sines(rope.pairs());
    for (uint32_t p = 0; p < positions; ++p) {
        rope.angles(static_cast<int>(p), cosines.data(), sines.data());
        for (size_t i = 0; i < rope.pairs(); ++i) {
            table.push_back(cosines[i]);
            table.push_back(sines[i]);
        }
    }
    return table;
}

// The same rotation as the CPU's Rope for every kind a model has: both pairings, Llama 3's
// rope_freqs factors, Phi-3's partial rotation with its LongRoPE factors (short and long, by the
// context length) and magnitude, Gemma 3's local and global bases.
struct RopeCase {
    const char* name;
    int context;
};
const RopeCase kRopeCases[] = {
    {"stories260K.gguf", 512},           {"synth-qwen2-256-Q8_0.gguf", 512},
    {"synth-llama3-256-Q8_0.gguf", 512}, {"synth-phi3-256.gguf", 512},
    {"synth-phi3-256.gguf", 8192},       {"synth-gemma3-256.gguf", 512},
    {"synth-smollm3-256.gguf", 512},
};

TEST_F(ShaderTest, RopeMatchesTheCpuForEveryConvention) {
    bool magnitude_seen = false;
    for (const auto& [name, context] : kRopeCases) {
        const auto model = Model::load(test::model_path(name));
        const auto& config = model->config();
        const LayerRopes ropes(*model, context);
        for (const Rope& rope : ropes.kinds()) {
            magnitude_seen |= rope.magnitude() != 1.0f;
            const uint32_t tokens = 7, heads = static_cast<uint32_t>(config.head_count);
            const uint32_t head_dim = static_cast<uint32_t>(config.head_dim);
            const uint32_t first = 40;
            auto x = random_floats(size_t{tokens} * heads * head_dim);
            const auto pairs = static_cast<uint32_t>(rope.pairs());
            auto data = buffer_with(x), angles = buffer_with(angle_table(rope, first + tokens));
            const RopePush push{tokens, heads, head_dim,
                                pairs,  first, rope.style() == RopeStyle::Neox ? 1u : 0u};
            run(rope_spv, {data.get(), angles.get()}, push,
                groups_of(size_t{tokens} * heads * pairs));
            const auto y = read(*data, x.size());
            for (uint32_t t = 0; t < tokens; ++t) {
                for (uint32_t h = 0; h < heads; ++h)
                    rope.apply(&x[(t * heads + h) * head_dim], int(first + t));
            }
            for (size_t i = 0; i < x.size(); ++i)
                ASSERT_NEAR(y[i], x[i], 2e-4) << name << " at " << i;
        }
    }
    EXPECT_TRUE(magnitude_seen) << "no case scales by a LongRoPE magnitude";
}

// Keys rotated and stored as halves at their positions' slots (a ring of 32 the step wraps),
// values stored as halves: the CPU backend's Rope and float_to_half, for every kind of rotation
// of kRopeCases; with no pairs (a layer without RoPE) the keys are stored as they are.
TEST_F(ShaderTest, KvStoreRotatesAndPacksLikeTheCpu) {
    for (const auto& [name, context] : kRopeCases) {
        const auto model = Model::load(test::model_path(name));
        const auto& config = model->config();
        const LayerRopes ropes(*model, context);
        std::vector<const Rope*> kinds{nullptr};
        for (const Rope& rope : ropes.kinds()) kinds.push_back(&rope);
        for (const Rope* rope : kinds) {
            const uint32_t tokens = 5, first = 30, capacity = 40, rows = 32;
            const auto kv_heads = static_cast<uint32_t>(config.kv_head_count);
            const auto head_dim = static_cast<uint32_t>(config.head_dim);
            const uint32_t kv_dim = kv_heads * head_dim;
            auto k = random_floats(size_t{tokens} * kv_dim);
            const auto v = random_floats(size_t{tokens} * kv_dim);
            auto kb = buffer_with(k), vb = buffer_with(v);
            auto angles = rope != nullptr ? buffer_with(angle_table(*rope, capacity))
                                          : buffer_with(nullptr, 4);
            auto key_cache = buffer_with(nullptr, size_t{rows} * kv_dim * 2);
            auto value_cache = buffer_with(nullptr, size_t{rows} * kv_dim * 2);
            const uint32_t pairs = rope != nullptr ? static_cast<uint32_t>(rope->pairs()) : 0;
            const uint32_t neox = rope != nullptr && rope->style() == RopeStyle::Neox ? 1 : 0;
            const KvStorePush push{tokens, kv_heads, head_dim, pairs, first, neox, rows};
            run(kv_store_spv,
                {kb.get(), vb.get(), angles.get(), key_cache.get(), value_cache.get()}, push,
                groups_of(size_t{tokens} * kv_dim / 2));
            const auto* keys = static_cast<const uint16_t*>(key_cache->data());
            const auto* values = static_cast<const uint16_t*>(value_cache->data());
            for (uint32_t t = 0; t < tokens; ++t) {
                for (uint32_t h = 0; h < kv_heads && rope != nullptr; ++h)
                    rope->apply(&k[(t * kv_heads + h) * head_dim], int(first + t));
                for (uint32_t i = 0; i < kv_dim; ++i) {
                    const size_t slot = size_t{(first + t) % rows} * kv_dim + i;
                    if (rope == nullptr) {
                        ASSERT_EQ(keys[slot], kernels::float_to_half(k[t * kv_dim + i]));
                    } else {
                        ASSERT_NEAR(kernels::half_to_float(keys[slot]), k[t * kv_dim + i], 2e-3)
                            << name << " token " << t << " element " << i;
                    }
                    ASSERT_EQ(values[slot], kernels::float_to_half(v[t * kv_dim + i]));
                }
            }
        }
    }
}

// One attention case: the model's shape, the step's tokens and where they start, and the
// layer's window and soft-cap.
struct AttentionCase {
    uint32_t tokens, heads, kv_heads, head_dim, first;
    uint32_t window = 0;
    float softcap = 0.0f;
    float query_scale = 1.0f;  // larger queries push scores into the cap's curve
    uint32_t rows = 0;         // > 0: a ring, position p in row p % rows; 0: a row per position
    float sink_scale = 0.0f;   // > 0: gpt-oss's sinks, one logit per head drawn up to this size
};

// Attention over an F16 cache, against the CPU's definition as a plain softmax in double
// precision: token t sees positions [first + t + 1 - window, first + t] (all up to its own
// without a window), scores are softcap(q·k / sqrt(head_dim)), grouped-query heads; a head's
// sink, where the case has them, is one more logit in its softmax that weighs no value.
void check_attention(ShaderTest& test, std::span<const uint32_t> spirv, const AttentionCase& c,
                     std::mt19937& random) {
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    const auto randoms = [&](size_t count, float scale) {
        std::vector<float> values(count);
        for (auto& v : values) v = scale * value(random);
        return values;
    };
    const uint32_t positions = c.first + c.tokens;
    const uint32_t kv_dim = c.kv_heads * c.head_dim;
    const auto q = randoms(size_t{c.tokens} * c.heads * c.head_dim, c.query_scale);
    auto k = randoms(size_t{positions} * kv_dim, 1.0f);
    auto v = randoms(size_t{positions} * kv_dim, 1.0f);
    std::vector<uint16_t> k_half(k.size()), v_half(v.size());
    for (size_t i = 0; i < k.size(); ++i) {
        k_half[i] = kernels::float_to_half(k[i]);
        k[i] = kernels::half_to_float(k_half[i]);
        v_half[i] = kernels::float_to_half(v[i]);
        v[i] = kernels::half_to_float(v_half[i]);
    }
    const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
    const uint32_t rows = c.rows > 0 ? c.rows : positions;
    // Every position written in order, as a ring keeps them: later ones take earlier ones' rows.
    std::vector<uint16_t> k_rows(size_t{rows} * kv_dim), v_rows(k_rows.size());
    for (uint32_t p = 0; p < positions; ++p) {
        std::copy_n(&k_half[size_t{p} * kv_dim], kv_dim, &k_rows[size_t{p % rows} * kv_dim]);
        std::copy_n(&v_half[size_t{p} * kv_dim], kv_dim, &v_rows[size_t{p % rows} * kv_dim]);
    }
    const bool with_sinks = c.sink_scale > 0.0f;
    const auto sinks = randoms(c.heads, with_sinks ? c.sink_scale : 1.0f);
    const AttentionPush push{c.tokens, c.heads,  c.kv_heads, c.head_dim, c.first,
                             scale,    c.window, c.softcap,  rows,       with_sinks ? 1u : 0u};
    const auto y = test.run_attention(spirv, q, k_rows, v_rows, sinks, push);
    for (uint32_t t = 0; t < c.tokens; ++t) {
        const uint32_t limit = c.first + t + 1;
        const uint32_t start = c.window > 0 && limit > c.window ? limit - c.window : 0;
        for (uint32_t h = 0; h < c.heads; ++h) {
            const size_t q_offset = (size_t{t} * c.heads + h) * c.head_dim;
            const size_t kv_offset = size_t{h / (c.heads / c.kv_heads)} * c.head_dim;
            std::vector<double> scores;
            double maximum = -1e300, total = 0;
            for (uint32_t p = start; p < limit; ++p) {
                double dot = 0;
                for (uint32_t d = 0; d < c.head_dim; ++d)
                    dot += double(q[q_offset + d]) * k[p * kv_dim + kv_offset + d];
                double score = dot * scale;
                if (c.softcap > 0) score = c.softcap * std::tanh(score / c.softcap);
                scores.push_back(score);
                maximum = std::max(maximum, score);
            }
            for (auto& score : scores) total += score = std::exp(score - maximum);
            if (with_sinks) total += std::exp(double(sinks[h]) - maximum);
            for (uint32_t d = 0; d < c.head_dim; ++d) {
                double expected = 0;
                for (uint32_t p = start; p < limit; ++p)
                    expected += scores[p - start] / total * v[p * kv_dim + kv_offset + d];
                ASSERT_NEAR(y[q_offset + d], expected, 1e-5)
                    << c.tokens << " tokens from " << c.first << ", head_dim " << c.head_dim
                    << ", window " << c.window << ", cap " << c.softcap << ": token " << t
                    << " head " << h << " dim " << d;
            }
        }
    }
}

// Causal attention with heads of up to 128 dimensions: windows longer and shorter than the
// workgroup, heads not a multiple of the combine's slice.
TEST_F(ShaderTest, AttentionMatchesASoftmaxOverTheCache) {
    for (const AttentionCase& c :
         {AttentionCase{1, 1, 1, 8, 0}, AttentionCase{3, 8, 4, 8, 5},
          AttentionCase{2, 4, 2, 64, 70}, AttentionCase{1, 12, 3, 128, 200},
          AttentionCase{2, 4, 2, 96, 50}}) {
        check_attention(*this, attention_spv, c, m_random);
    }
}

// Gemma's sliding windows (shorter than the workgroup, longer than what a token has seen, and
// cutting into a prompt step) and soft-capped scores, alone and together.
TEST_F(ShaderTest, AttentionKeepsToTheWindowAndCapsTheScores) {
    for (const AttentionCase& c : {
             AttentionCase{4, 4, 2, 64, 60, 32},
             AttentionCase{3, 4, 2, 64, 10, 32},
             AttentionCase{5, 4, 1, 64, 100, 5},
             AttentionCase{6, 2, 2, 64, 0, 3},
             AttentionCase{2, 4, 2, 64, 40, 0, 1.0f, 4.0f},
             AttentionCase{3, 4, 2, 128, 80, 32, 50.0f, 8.0f},
             // Rings: the window before the step and the step, wrapped.
             AttentionCase{4, 4, 2, 64, 100, 32, 0.0f, 1.0f, 40},
             AttentionCase{8, 4, 1, 64, 250, 32, 0.0f, 1.0f, 256},
         }) {
        check_attention(*this, attention_spv, c, m_random);
    }
}

// gpt-oss's sinks, small and large against the scores (a large one takes most of the softmax),
// with its window of 128 on the sliding layers and a prompt step that crosses it, in a ring;
// and through the 256 variant. Sinks bound but switched off change nothing: the cases above
// bind random ones too.
TEST_F(ShaderTest, AttentionSinksJoinEachHeadsDenominator) {
    for (const AttentionCase& c : {
             AttentionCase{1, 8, 2, 64, 0, 0, 0.0f, 1.0f, 0, 1.0f},
             AttentionCase{1, 8, 2, 64, 200, 0, 0.0f, 1.0f, 0, 8.0f},
             AttentionCase{5, 8, 2, 64, 140, 128, 0.0f, 4.0f, 0, 3.0f},
             AttentionCase{7, 4, 1, 64, 250, 128, 0.0f, 1.0f, 135, 2.0f},
             AttentionCase{3, 4, 2, 96, 30, 0, 0.0f, 1.0f, 0, 20.0f},
         }) {
        check_attention(*this, attention_spv, c, m_random);
    }
    check_attention(*this, attention_256_spv,
                    AttentionCase{2, 4, 1, 256, 90, 0, 0.0f, 1.0f, 0, 3.0f}, m_random);
}

// Heads of 256 dimensions (Gemma 2 and 3; Gemma-3-1B has 4 heads over 1 KV head) through the
// attention_256 variant, which also serves smaller heads correctly.
TEST_F(ShaderTest, AttentionRunsHeadsOf256) {
    for (const AttentionCase& c : {
             AttentionCase{1, 4, 1, 256, 150},
             AttentionCase{3, 8, 4, 256, 60, 32, 1.0f, 4.0f},
             AttentionCase{2, 4, 1, 256, 300, 64},
             AttentionCase{2, 4, 2, 160, 40},
             AttentionCase{2, 4, 2, 64, 70},
             AttentionCase{3, 8, 4, 256, 300, 32, 1.0f, 4.0f, 34},
         }) {
        check_attention(*this, attention_256_spv, c, m_random);
    }
}

}  // namespace
}  // namespace hearth::vulkan
