// Every shader against its CPU twin on random inputs of awkward sizes, on a real Vulkan device
// (Mesa's lavapipe here).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/model.h"
#include "engine/rope.h"
#include "engine/sampler.h"
#include "engine/tensor_types.h"
#include "engine/vulkan/device.h"
#include "kernels/quantize.h"
#include "shaders/add_spv.h"
#include "shaders/argmax_spv.h"
#include "shaders/attention_spv.h"
#include "shaders/gumbel_sample_spv.h"
#include "shaders/matvec_f16_spv.h"
#include "shaders/matvec_q4_0_spv.h"
#include "shaders/matvec_q8_0_spv.h"
#include "shaders/rmsnorm_spv.h"
#include "shaders/rope_spv.h"
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
    void run(const uint32_t (&spirv)[N], std::vector<Buffer*> buffers, const Push& push,
             uint32_t groups) {
        Pipeline pipeline(*s_device, std::span(spirv, N), static_cast<uint32_t>(buffers.size()),
                          sizeof(Push));
        pipeline.bind(buffers);
        s_device->run(pipeline, &push, groups);
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
        const Rope rope(*model);
        const uint32_t tokens = 7, heads = static_cast<uint32_t>(config.head_count);
        const uint32_t head_dim = static_cast<uint32_t>(config.head_dim);
        const uint32_t first = 40;
        auto x = random_floats(size_t{tokens} * heads * head_dim);
        std::vector<float> frequencies(rope.frequencies().begin(), rope.frequencies().end());
        auto data = buffer_with(x), freq = buffer_with(frequencies);
        struct {
            uint32_t tokens, heads, head_dim, pairs, first, neox;
        } push{tokens,   heads,
               head_dim, static_cast<uint32_t>(frequencies.size()),
               first,    config.rope_style == RopeStyle::Neox ? 1u : 0u};
        run(rope_spv, {data.get(), freq.get()}, push,
            groups_of(size_t{tokens} * heads * frequencies.size()));
        const auto y = read(*data, x.size());
        for (uint32_t t = 0; t < tokens; ++t) {
            for (uint32_t h = 0; h < heads; ++h)
                rope.apply(&x[(t * heads + h) * head_dim], int(first + t));
        }
        for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(y[i], x[i], 2e-4) << name << " at " << i;
    }
}

TEST_F(ShaderTest, SwigluAndAddMatchTheCpu) {
    for (const uint32_t count : {1u, 65u, 5632u}) {
        const auto gate = random_floats(count, 6.0f), up = random_floats(count);
        auto g = buffer_with(gate), u = buffer_with(up);
        run(swiglu_spv, {g.get(), u.get()}, count, groups_of(count));
        const auto activated = read(*g, count);
        for (uint32_t i = 0; i < count; ++i) {
            EXPECT_NEAR(activated[i], gate[i] / (1.0f + std::exp(-gate[i])) * up[i], 1e-5);
        }
        run(add_spv, {g.get(), u.get()}, count, groups_of(count));
        const auto sum = read(*g, count);
        for (uint32_t i = 0; i < count; ++i) EXPECT_FLOAT_EQ(sum[i], activated[i] + up[i]);
    }
}

TEST_F(ShaderTest, ArgmaxPicksTheLowestIndexAmongEquals) {
    for (const uint32_t count : {1u, 513u, 32000u}) {
        auto logits = random_floats(count, 10.0f);
        if (count > 10) logits[count - 1] = logits[7] = 99.0f;  // a tie: 7 wins
        auto in = buffer_with(logits), out = buffer_with(nullptr, 4);
        run(argmax_spv, {in.get(), out.get()}, count, 1);
        EXPECT_EQ(*static_cast<const uint32_t*>(out->data()), static_cast<uint32_t>(argmax(logits)))
            << count;
    }
}

// Gumbel-max draws follow softmax(logits / T): a chi-square test over 20,000 draws on eight
// tokens, at two temperatures (critical value for 7 degrees of freedom at p = 0.001: 24.32).
// The same seed and steps give the same tokens; another seed gives others.
TEST_F(ShaderTest, GumbelMaxSamplingFollowsTheSoftmax) {
    const std::vector<float> logits{1.0f, 0.5f, 2.0f, -1.0f, 0.0f, 1.5f, -0.5f, 0.25f};
    static constexpr uint32_t kDraws = 20000;
    auto in = buffer_with(logits);
    const auto draw = [&](float temperature, uint64_t seed, uint32_t draws) {
        auto out = buffer_with(nullptr, draws * 4);
        struct {
            uint32_t count;
            float temperature;
            uint32_t seed_low, seed_high, first_step;
        } push{8, temperature, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), 0};
        run(gumbel_sample_spv, {in.get(), out.get()}, push, draws);
        const auto* tokens = static_cast<const uint32_t*>(out->data());
        return std::vector<uint32_t>(tokens, tokens + draws);
    };
    for (const float temperature : {1.0f, 0.7f}) {
        const auto tokens = draw(temperature, 42, kDraws);
        std::vector<double> counts(8, 0.0), probabilities(8);
        for (const uint32_t token : tokens) {
            ASSERT_LT(token, 8u);
            counts[token] += 1;
        }
        double total = 0;
        for (size_t i = 0; i < 8; ++i)
            total += probabilities[i] = std::exp(logits[i] / temperature);
        double chi_square = 0;
        for (size_t i = 0; i < 8; ++i) {
            const double expected = kDraws * probabilities[i] / total;
            chi_square += (counts[i] - expected) * (counts[i] - expected) / expected;
        }
        EXPECT_LT(chi_square, 24.32) << "temperature " << temperature;
    }
    EXPECT_EQ(draw(1.0f, 7, 500), draw(1.0f, 7, 500));
    EXPECT_NE(draw(1.0f, 7, 500), draw(1.0f, 8, 500));
}

// The products that dequantise in the shader, against the CPU's dequantisation of the same bytes.
TEST_F(ShaderTest, QuantisedMatvecsMatchTheCpuDequantisation) {
    struct Case {
        TensorType type;
        void (*quantize)(const float*, void*, size_t);
        std::span<const uint32_t> spirv;
    };
    const Case cases[] = {
        {TensorType::F16, kernels::quantize_f16, std::span(matvec_f16_spv)},
        {TensorType::Q4_0, kernels::quantize_q4_0, std::span(matvec_q4_0_spv)},
        {TensorType::Q8_0, kernels::quantize_q8_0, std::span(matvec_q8_0_spv)},
    };
    for (const auto& test : cases) {
        Pipeline pipeline(*s_device, test.spirv, 3, 8);
        for (const auto& [rows, columns] : {std::pair{1u, 32u}, {37u, 96u}, {129u, 2048u}}) {
            const auto weights = random_floats(size_t{rows} * columns);
            const size_t row_bytes = tensor_bytes(test.type, columns);
            std::vector<std::byte> quantized(row_bytes * rows);
            for (uint32_t r = 0; r < rows; ++r) {
                test.quantize(&weights[size_t{r} * columns], quantized.data() + row_bytes * r,
                              columns);
            }
            const auto x = random_floats(columns);
            auto w = buffer_with(quantized), in = buffer_with(x);
            auto out = buffer_with(nullptr, rows * 4);
            Buffer* buffers[] = {w.get(), in.get(), out.get()};
            pipeline.bind(buffers);
            const uint32_t shape[] = {rows, columns};
            s_device->run(pipeline, shape, rows);
            const auto y = read(*out, rows);
            std::vector<float> row(columns);
            for (uint32_t r = 0; r < rows; ++r) {
                dequantize(test.type, quantized.data() + row_bytes * r, row.data(), columns);
                double expected = 0;
                for (uint32_t c = 0; c < columns; ++c) expected += double(row[c]) * x[c];
                EXPECT_NEAR(y[r], expected, 1e-4 * std::sqrt(double(columns)))
                    << tensor_type_name(static_cast<uint32_t>(test.type)) << " " << rows << "x"
                    << columns;
            }
        }
    }
}

// Attention over a cache, against a plain softmax in double precision: grouped-query heads,
// several query tokens at once (each sees its causal window), windows longer and shorter than
// the workgroup.
TEST_F(ShaderTest, AttentionMatchesASoftmaxOverTheCache) {
    struct Shape {
        uint32_t tokens, heads, kv_heads, head_dim, first;
    };
    for (const Shape shape : {Shape{1, 1, 1, 8, 0}, Shape{3, 8, 4, 8, 5}, Shape{2, 4, 2, 64, 70},
                              Shape{1, 12, 3, 128, 200}}) {
        const uint32_t positions = shape.first + shape.tokens;
        const uint32_t kv_dim = shape.kv_heads * shape.head_dim;
        const auto q = random_floats(size_t{shape.tokens} * shape.heads * shape.head_dim);
        const auto k = random_floats(size_t{positions} * kv_dim);
        const auto v = random_floats(size_t{positions} * kv_dim);
        auto qb = buffer_with(q), kb = buffer_with(k), vb = buffer_with(v);
        auto out = buffer_with(nullptr, q.size() * 4);
        const float scale = 1.0f / std::sqrt(static_cast<float>(shape.head_dim));
        struct {
            uint32_t tokens, heads, kv_heads, head_dim, first;
            float scale;
        } push{shape.tokens, shape.heads, shape.kv_heads, shape.head_dim, shape.first, scale};
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
