// Every shader against its CPU twin on random inputs of awkward sizes, on a real Vulkan device
// (Mesa's lavapipe here).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "engine/compute/vulkan/device.h"
#include "engine/compute/vulkan/shader_set.h"
#include "engine/format/tensor_types.h"
#include "engine/generation/sampler.h"
#include "engine/model/model.h"
#include "engine/model/rope.h"
#include "kernels/half.h"
#include "shaders/argmax_spv.h"
#include "shaders/attention_spv.h"
#include "shaders/kv_store_spv.h"
#include "shaders/matmul_shared_f32_spv.h"
#include "shaders/rmsnorm_spv.h"
#include "shaders/rope_spv.h"
#include "shaders/sample_spv.h"
#include "shaders/swiglu_spv.h"
#include "tests/support/shared_data.h"

namespace hearth::vulkan {
namespace {

class ShaderTest : public testing::Test {
protected:
    static void SetUpTestSuite() { s_device = Device::open(std::nullopt, true).release(); }
    static void TearDownTestSuite() { delete s_device; }

    std::vector<float> random_floats(size_t count, float scale = 1.0f) {
        std::uniform_real_distribution<float> value(-scale, scale);
        std::vector<float> values(count);
        for (auto& v : values) v = value(m_random);
        return values;
    }
    std::unique_ptr<Buffer> buffer_with(const void* data, size_t bytes) {
        auto buffer = std::make_unique<Buffer>(*s_device, bytes);
        if (data != nullptr) std::memcpy(buffer->data(), data, bytes);
        return buffer;
    }
    template <typename T>
    std::unique_ptr<Buffer> buffer_with(const std::vector<T>& values) {
        return buffer_with(values.data(), values.size() * sizeof(T));
    }
    template <size_t N, typename Push>
    void run(const uint32_t (&spirv)[N], std::vector<const Buffer*> buffers, const Push& push,
             uint32_t groups) {
        Pipeline pipeline(*s_device, "shader under test", std::span(spirv, N),
                          static_cast<uint32_t>(buffers.size()), sizeof(Push));
        pipeline.bind(buffers);
        s_device->run(pipeline, push, groups);
    }
    static std::vector<float> read(const Buffer& buffer, size_t count) {
        const auto* data = static_cast<const float*>(buffer.data());
        return {data, data + count};
    }

    static inline Device* s_device = nullptr;
    std::mt19937 m_random{11};
};

uint32_t groups_of(size_t count, uint32_t size = 64) {
    return static_cast<uint32_t>((count + size - 1) / size);
}

// (cos, sin) per (position, pair), as the backend's KV cache holds them.
std::vector<float> angle_table(const Rope& rope, uint32_t positions) {
    std::vector<float> table;
    for (uint32_t p = 0; p < positions; ++p) {
        for (const double frequency : rope.frequencies()) {
            table.push_back(static_cast<float>(std::cos(p * frequency)));
            table.push_back(static_cast<float>(std::sin(p * frequency)));
        }
    }
    return table;
}

TEST_F(ShaderTest, RmsNormMatchesTheCpu) {
    for (const auto& [rows, dim] : {std::pair{1u, 1u}, {3u, 67u}, {5u, 2048u}}) {
        const auto x = random_floats(size_t{rows} * dim, 3.0f);
        const auto weight = random_floats(dim);
        auto in = buffer_with(x), w = buffer_with(weight), out = buffer_with(nullptr, x.size() * 4);
        struct {
            uint32_t rows, dim;
            float epsilon;
        } push{rows, dim, 1e-5f};
        run(rmsnorm_spv, {in.get(), w.get(), out.get()}, push, rows);
        const auto y = read(*out, x.size());
        for (uint32_t r = 0; r < rows; ++r) {
            double squares = 0;
            for (uint32_t i = 0; i < dim; ++i) squares += double(x[r * dim + i]) * x[r * dim + i];
            const double scale = 1.0 / std::sqrt(squares / dim + 1e-5);
            for (uint32_t i = 0; i < dim; ++i) {
                EXPECT_NEAR(y[r * dim + i], x[r * dim + i] * scale * weight[i], 1e-4)
                    << rows << "x" << dim;
            }
        }
    }
}

// The same rotation as the CPU's Rope, for both pairings and for Llama 3's rope_freqs factors.
TEST_F(ShaderTest, RopeMatchesTheCpuForEveryConvention) {
    for (const char* name :
         {"stories260K.gguf", "synth-qwen2-256-Q8_0.gguf", "synth-llama3-256-Q8_0.gguf"}) {
        const auto model = Model::load(test::model_path(name));
        const auto& config = model->config();
        const LayerRopes ropes(*model, 512);
        const Rope& rope = *ropes.layer(0);
        const uint32_t tokens = 7, heads = static_cast<uint32_t>(config.head_count);
        const uint32_t head_dim = static_cast<uint32_t>(config.head_dim);
        const uint32_t first = 40;
        auto x = random_floats(size_t{tokens} * heads * head_dim);
        const auto pairs = static_cast<uint32_t>(rope.frequencies().size());
        auto data = buffer_with(x), angles = buffer_with(angle_table(rope, first + tokens));
        const RopePush push{tokens, heads, head_dim,
                            pairs,  first, config.rope.style == RopeStyle::Neox ? 1u : 0u};
        run(rope_spv, {data.get(), angles.get()}, push, groups_of(size_t{tokens} * heads * pairs));
        const auto y = read(*data, x.size());
        for (uint32_t t = 0; t < tokens; ++t) {
            for (uint32_t h = 0; h < heads; ++h)
                rope.apply(&x[(t * heads + h) * head_dim], int(first + t));
        }
        for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(y[i], x[i], 2e-4) << name << " at " << i;
    }
}

TEST_F(ShaderTest, SwigluMatchesTheCpu) {
    for (const uint32_t count : {1u, 65u, 5632u}) {
        const auto gate = random_floats(count, 6.0f), up = random_floats(count);
        auto g = buffer_with(gate), u = buffer_with(up);
        run(swiglu_spv, {g.get(), u.get()}, count, groups_of(count));
        const auto activated = read(*g, count);
        for (uint32_t i = 0; i < count; ++i) {
            EXPECT_NEAR(activated[i], gate[i] / (1.0f + std::exp(-gate[i])) * up[i], 1e-5);
        }
    }
}

TEST_F(ShaderTest, ArgmaxPicksTheLowestIndexAmongEquals) {
    for (const uint32_t count : {1u, 513u, 32000u}) {
        auto logits = random_floats(count, 10.0f);
        if (count > 10) logits[count - 1] = logits[7] = 99.0f;  // a tie: 7 wins
        auto in = buffer_with(logits), ring = buffer_with(nullptr, 16);
        run(argmax_spv, {in.get(), ring.get()}, ArgmaxPush{count, 2}, 1);
        EXPECT_EQ(static_cast<const uint32_t*>(ring->data())[2],
                  static_cast<uint32_t>(argmax(logits)))
            << count;
    }
}

// Expected probabilities of the CPU sampler's rule: top-k, then min-p and top-p on the
// untempered probabilities, then softmax at the temperature over the survivors.
std::vector<double> sampler_distribution(const std::vector<float>& logits, const SamplePush& s) {
    std::vector<size_t> order(logits.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return logits[a] > logits[b]; });
    size_t keep = s.top_k > 0 ? std::min<size_t>(s.top_k, order.size()) : order.size();
    const double maximum = logits[order[0]];
    double total = 0;
    for (size_t i = 0; i < keep; ++i) total += std::exp(logits[order[i]] - maximum);
    double cumulative = 0;
    size_t survivors = 0;
    for (; survivors < keep; ++survivors) {
        const double p = std::exp(logits[order[survivors]] - maximum) / total;
        if (survivors > 0 && p < s.min_p / total) break;
        cumulative += p;
        if (cumulative >= s.top_p) {
            ++survivors;
            break;
        }
    }
    std::vector<double> probabilities(logits.size(), 0.0);
    double tempered = 0;
    for (size_t i = 0; i < std::max<size_t>(survivors, 1); ++i)
        tempered += probabilities[order[i]] =
            std::exp((logits[order[i]] - maximum) / s.temperature);
    for (auto& p : probabilities) p /= tempered;
    return probabilities;
}

// Device draws follow the CPU sampler's distribution: a chi-square test over 12,000 draws on
// eight tokens for each truncation (critical values at p = 0.001), no draw outside the
// survivors, and the same seed and steps give the same tokens.
TEST_F(ShaderTest, DeviceSamplingFollowsTheCpuSamplersDistribution) {
    const std::vector<float> logits{1.0f, 0.5f, 2.0f, -1.0f, 0.0f, 1.5f, -0.5f, 0.25f};
    static constexpr uint32_t kDraws = 12000;
    const double critical[] = {0, 10.83, 13.82, 16.27, 18.47, 20.52, 22.46, 24.32};
    auto in = buffer_with(logits);
    const auto draw = [&](SamplePush push, uint32_t draws) {
        auto out = buffer_with(nullptr, draws * 4);
        push.count = 8;
        push.slot = 0;
        push.ring = draws;
        run(sample_spv, {in.get(), out.get()}, push, draws);
        const auto* tokens = static_cast<const uint32_t*>(out->data());
        return std::vector<uint32_t>(tokens, tokens + draws);
    };
    const SamplePush cases[] = {
        {.temperature = 1.0f, .top_k = 0, .top_p = 1.0f, .min_p = 0.0f, .seed_low = 42},
        {.temperature = 0.7f, .top_k = 0, .top_p = 1.0f, .min_p = 0.0f, .seed_low = 43},
        {.temperature = 1.0f, .top_k = 4, .top_p = 1.0f, .min_p = 0.0f, .seed_low = 44},
        {.temperature = 0.8f, .top_k = 8, .top_p = 0.8f, .min_p = 0.0f, .seed_low = 45},
        {.temperature = 1.3f, .top_k = 40, .top_p = 0.95f, .min_p = 0.3f, .seed_low = 46},
        {.temperature = 1.0f, .top_k = 0, .top_p = 1.0f, .min_p = 0.2f, .seed_low = 47},
    };
    for (const auto& settings : cases) {
        const auto expected = sampler_distribution(logits, settings);
        std::vector<double> counts(8, 0.0);
        for (const uint32_t token : draw(settings, kDraws)) {
            ASSERT_LT(token, 8u);
            ASSERT_GT(expected[token], 0.0) << "token " << token << " was truncated away";
            counts[token] += 1;
        }
        double chi_square = 0;
        int survivors = 0;
        for (size_t i = 0; i < 8; ++i) {
            if (expected[i] == 0.0) continue;
            ++survivors;
            const double e = kDraws * expected[i];
            chi_square += (counts[i] - e) * (counts[i] - e) / e;
        }
        ASSERT_GE(survivors, 2);
        EXPECT_LT(chi_square, critical[survivors - 1])
            << "top-k " << settings.top_k << ", top-p " << settings.top_p << ", min-p "
            << settings.min_p << ", T " << settings.temperature;
    }
    SamplePush seeded{.temperature = 1.0f, .top_k = 0, .top_p = 1.0f, .seed_low = 7};
    EXPECT_EQ(draw(seeded, 500), draw(seeded, 500));
    SamplePush other = seeded;
    other.seed_low = 8;
    EXPECT_NE(draw(seeded, 500), draw(other, 500));
}

// Real weights of every supported type (the shared models' tensors), against the CPU's
// dequantisation of the same bytes and a double-precision product: one token and a tile and a
// half of them, with a bias, accumulation, offsets and strides.
TEST_F(ShaderTest, ProductsMatchTheCpuForEveryWeightType) {
    std::map<TensorType, int> covered;
    for (const char* name :
         {"stories260K.gguf", "synth-llama-256-F16.gguf", "synth-llama-256-BF16.gguf",
          "synth-llama-256-Q4_0.gguf", "synth-llama-256-Q4_1.gguf", "synth-llama-256-Q5_0.gguf",
          "synth-llama-256-Q5_1.gguf", "synth-llama-256-Q8_0.gguf", "synth-llama-256-Q4_K_M.gguf",
          "synth-llama-256-Q5_K.gguf", "synth-llama-256-Q6_K.gguf"}) {
        const auto model = Model::load(test::model_path(name));
        const ShaderSet shaders(*s_device, *model);
        const auto& layer = model->weights().layers[0];
        for (const WeightMatrix* w : {&layer.gate, &layer.down, &model->weights().output}) {
            const auto rows = static_cast<uint32_t>(w->rows);
            const auto columns = static_cast<uint32_t>(w->columns);
            ++covered[w->type];
            auto weights = buffer_with(w->data, rows * w->row_bytes);
            for (const uint32_t tokens : {1u, 12u}) {
                const uint32_t first_input = 1, first_row = 3, stride = rows + 5;
                const auto x = random_floats(size_t{tokens + first_input} * columns);
                const auto bias = random_floats(first_row + rows);
                const auto before = random_floats(size_t{tokens} * stride);
                auto in = buffer_with(x), b = buffer_with(bias), out = buffer_with(before);
                const MatmulPush push{rows,
                                      columns,
                                      tokens,
                                      first_input,
                                      first_row,
                                      stride,
                                      kMatmulBias | kMatmulAccumulate};
                Pipeline& pipeline = const_cast<Pipeline&>(shaders.matmul(w->type));
                const Buffer* buffers[] = {weights.get(), in.get(), out.get(), b.get()};
                pipeline.bind(buffers);
                s_device->run(pipeline, push, groups_of(rows, shaders.rows_per_workgroup()),
                              groups_of(tokens, kMatmulTile));
                const auto y = read(*out, before.size());
                std::vector<float> row(columns);
                for (uint32_t r = 0; r < rows; ++r) {
                    dequantize(w->type, w->row(r), row.data(), columns);
                    for (uint32_t t = 0; t < tokens; ++t) {
                        double expected = 0, magnitude = 0;
                        for (uint32_t c = 0; c < columns; ++c) {
                            const double term = double(row[c]) * x[(first_input + t) * columns + c];
                            expected += term;
                            magnitude += std::fabs(term);
                        }
                        const size_t index = size_t{t} * stride + first_row + r;
                        expected += bias[first_row + r] + before[index];
                        ASSERT_NEAR(y[index], expected, 1e-5 * magnitude + 1e-5)
                            << name << " " << tensor_type_info(w->type).name << " row " << r
                            << " token " << t;
                    }
                }
                // Outside the piece's rows nothing changed.
                for (uint32_t t = 0; t < tokens; ++t) {
                    for (uint32_t r = 0; r < first_row; ++r)
                        ASSERT_EQ(y[size_t{t} * stride + r], before[size_t{t} * stride + r]);
                }
            }
        }
    }
    for (const auto type : {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q4_0,
                            TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0,
                            TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K}) {
        EXPECT_GT(covered[type], 0) << tensor_type_info(type).name << " was not tested";
    }
}

// The variant for devices without subgroup arithmetic (a workgroup per row, shared memory).
TEST_F(ShaderTest, TheSharedMemoryProductMatchesTheCpu) {
    for (const auto& [rows, columns] : {std::pair{1u, 7u}, {37u, 96u}, {129u, 2048u}}) {
        const auto w = random_floats(size_t{rows} * columns);
        const auto x = random_floats(size_t{3} * columns);
        auto weights = buffer_with(w), in = buffer_with(x), none = buffer_with(nullptr, 4);
        auto out = buffer_with(nullptr, size_t{3} * rows * 4);
        const MatmulPush push{rows, columns, 3, 0, 0, rows, 0};
        run(matmul_shared_f32_spv, {weights.get(), in.get(), out.get(), none.get()}, push, rows);
        const auto y = read(*out, size_t{3} * rows);
        for (uint32_t t = 0; t < 3; ++t) {
            for (uint32_t r = 0; r < rows; ++r) {
                double expected = 0;
                for (uint32_t c = 0; c < columns; ++c)
                    expected += double(w[r * columns + c]) * x[t * columns + c];
                ASSERT_NEAR(y[t * rows + r], expected, 1e-4 * std::sqrt(double(columns)));
            }
        }
    }
}

// Embedding rows of every type, for token ids read from the ring (wrapping around its end).
TEST_F(ShaderTest, EmbeddingLookupsMatchTheCpu) {
    for (const char* name : {"stories260K.gguf", "synth-llama-256-Q4_K_M.gguf",
                             "synth-llama-256-Q5_1.gguf", "synth-qwen2-256-Q8_0.gguf"}) {
        const auto model = Model::load(test::model_path(name));
        const ShaderSet shaders(*s_device, *model);
        const auto& table = model->weights().token_embedding;
        const auto columns = static_cast<uint32_t>(table.columns);
        const auto rows = static_cast<uint32_t>(table.rows);
        const std::vector<uint32_t> ring{rows - 1, 0, 77, 5};  // slots 3, 0, 1: tokens 5, rows-1, 0
        auto weights = buffer_with(table.data, rows * table.row_bytes);
        auto tokens = buffer_with(ring), out = buffer_with(nullptr, size_t{3} * columns * 4);
        const EmbeddingPush push{columns, 0, rows, 3, 4};
        Pipeline& pipeline = const_cast<Pipeline&>(shaders.embedding(table.type));
        const Buffer* buffers[] = {weights.get(), tokens.get(), out.get()};
        pipeline.bind(buffers);
        s_device->run(pipeline, push, 3);
        const auto x = read(*out, size_t{3} * columns);
        std::vector<float> row(columns);
        const uint32_t expected_tokens[] = {5, rows - 1, 0};
        for (uint32_t t = 0; t < 3; ++t) {
            dequantize(table.type, table.row(expected_tokens[t]), row.data(), columns);
            for (uint32_t c = 0; c < columns; ++c)
                ASSERT_EQ(x[t * columns + c], row[c]) << name << " token " << t << " column " << c;
        }
    }
}

// Keys rotated and stored as halves at their positions, values stored as halves: the CPU
// backend's Rope and float_to_half, for both pairings and Llama 3's rope_freqs.
TEST_F(ShaderTest, KvStoreRotatesAndPacksLikeTheCpu) {
    for (const char* name :
         {"stories260K.gguf", "synth-qwen2-256-Q8_0.gguf", "synth-llama3-256-Q8_0.gguf"}) {
        const auto model = Model::load(test::model_path(name));
        const auto& config = model->config();
        const LayerRopes ropes(*model, 512);
        const Rope& rope = *ropes.layer(0);
        const uint32_t tokens = 5, first = 30, capacity = 40;
        const auto kv_heads = static_cast<uint32_t>(config.kv_head_count);
        const auto head_dim = static_cast<uint32_t>(config.head_dim);
        const uint32_t kv_dim = kv_heads * head_dim;
        auto k = random_floats(size_t{tokens} * kv_dim), v = random_floats(size_t{tokens} * kv_dim);
        auto kb = buffer_with(k), vb = buffer_with(v);
        auto angles = buffer_with(angle_table(rope, capacity));
        auto key_cache = buffer_with(nullptr, size_t{capacity} * kv_dim * 2);
        auto value_cache = buffer_with(nullptr, size_t{capacity} * kv_dim * 2);
        const RopePush push{tokens,   kv_heads,
                            head_dim, static_cast<uint32_t>(rope.frequencies().size()),
                            first,    config.rope.style == RopeStyle::Neox ? 1u : 0u};
        run(kv_store_spv, {kb.get(), vb.get(), angles.get(), key_cache.get(), value_cache.get()},
            push, groups_of(size_t{tokens} * kv_dim / 2));
        const auto* keys = static_cast<const uint16_t*>(key_cache->data());
        const auto* values = static_cast<const uint16_t*>(value_cache->data());
        for (uint32_t t = 0; t < tokens; ++t) {
            for (uint32_t h = 0; h < kv_heads; ++h)
                rope.apply(&k[(t * kv_heads + h) * head_dim], int(first + t));
            for (uint32_t i = 0; i < kv_dim; ++i) {
                const size_t slot = size_t{first + t} * kv_dim + i;
                ASSERT_NEAR(kernels::half_to_float(keys[slot]), k[t * kv_dim + i], 2e-3)
                    << name << " token " << t << " element " << i;
                ASSERT_EQ(values[slot], kernels::float_to_half(v[t * kv_dim + i]));
            }
        }
    }
}

// Attention over an F16 cache, against a plain softmax in double precision: grouped-query
// heads, several query tokens at once (each sees its causal window), windows longer and shorter
// than the workgroup.
TEST_F(ShaderTest, AttentionMatchesASoftmaxOverTheCache) {
    struct Shape {
        uint32_t tokens, heads, kv_heads, head_dim, first;
    };
    for (const Shape shape : {Shape{1, 1, 1, 8, 0}, Shape{3, 8, 4, 8, 5}, Shape{2, 4, 2, 64, 70},
                              Shape{1, 12, 3, 128, 200}}) {
        const uint32_t positions = shape.first + shape.tokens;
        const uint32_t kv_dim = shape.kv_heads * shape.head_dim;
        const auto q = random_floats(size_t{shape.tokens} * shape.heads * shape.head_dim);
        auto k = random_floats(size_t{positions} * kv_dim);
        auto v = random_floats(size_t{positions} * kv_dim);
        std::vector<uint16_t> k_half(k.size()), v_half(v.size());
        for (size_t i = 0; i < k.size(); ++i) {
            k_half[i] = kernels::float_to_half(k[i]);
            k[i] = kernels::half_to_float(k_half[i]);
            v_half[i] = kernels::float_to_half(v[i]);
            v[i] = kernels::half_to_float(v_half[i]);
        }
        auto qb = buffer_with(q), kb = buffer_with(k_half), vb = buffer_with(v_half);
        auto out = buffer_with(nullptr, q.size() * 4);
        const float scale = 1.0f / std::sqrt(static_cast<float>(shape.head_dim));
        const AttentionPush push{shape.tokens,   shape.heads, shape.kv_heads,
                                 shape.head_dim, shape.first, scale};
        run(attention_spv, {qb.get(), kb.get(), vb.get(), out.get()}, push,
            shape.tokens * shape.heads);
        const auto y = read(*out, q.size());
        for (uint32_t t = 0; t < shape.tokens; ++t) {
            for (uint32_t h = 0; h < shape.heads; ++h) {
                const size_t q_offset = (size_t{t} * shape.heads + h) * shape.head_dim;
                const size_t kv_offset =
                    size_t{h / (shape.heads / shape.kv_heads)} * shape.head_dim;
                const uint32_t limit = shape.first + t + 1;
                std::vector<double> scores(limit);
                double maximum = -1e300, total = 0;
                for (uint32_t p = 0; p < limit; ++p) {
                    double dot = 0;
                    for (uint32_t d = 0; d < shape.head_dim; ++d)
                        dot += double(q[q_offset + d]) * k[p * kv_dim + kv_offset + d];
                    maximum = std::max(maximum, scores[p] = dot * scale);
                }
                for (auto& score : scores) total += score = std::exp(score - maximum);
                for (uint32_t d = 0; d < shape.head_dim; ++d) {
                    double expected = 0;
                    for (uint32_t p = 0; p < limit; ++p)
                        expected += scores[p] / total * v[p * kv_dim + kv_offset + d];
                    ASSERT_NEAR(y[q_offset + d], expected, 1e-5)
                        << shape.tokens << " tokens, head " << h << ", dim " << d;
                }
            }
        }
    }
}

}  // namespace
}  // namespace hearth::vulkan
