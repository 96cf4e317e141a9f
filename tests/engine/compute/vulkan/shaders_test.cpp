// Every shader against its CPU twin on random inputs of awkward sizes, on a real Vulkan device
// (Mesa's lavapipe here).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "engine/compute/vulkan/device.h"
#include "engine/compute/vulkan/expert_products.h"
#include "engine/compute/vulkan/shader_set.h"
#include "engine/format/gguf_file.h"
#include "engine/format/tensor_types.h"
#include "engine/generation/sampler.h"
#include "engine/model/expert_routing.h"
#include "engine/model/model.h"
#include "engine/model/rope.h"
#include "kernels/attention.h"
#include "kernels/half.h"
#include "kernels/swiglu.h"
#include "shaders/argmax_spv.h"
#include "shaders/attention_256_spv.h"
#include "shaders/attention_spv.h"
#include "shaders/clamped_swiglu_spv.h"
#include "shaders/embedding_mxfp4_spv.h"
#include "shaders/expert_sum_spv.h"
#include "shaders/expert_tiles_spv.h"
#include "shaders/geglu_spv.h"
#include "shaders/kv_store_spv.h"
#include "shaders/matmul_mxfp4_spv.h"
#include "shaders/matmul_shared_f32_spv.h"
#include "shaders/matmul_shared_mxfp4_spv.h"
#include "shaders/rmsnorm_spv.h"
#include "shaders/rope_spv.h"
#include "shaders/route_spv.h"
#include "shaders/sample_spv.h"
#include "shaders/swiglu_spv.h"
#include "tests/support/shared_data.h"

namespace hearth::vulkan {
namespace {

uint32_t groups_of(size_t count, uint32_t size = 64) {
    return static_cast<uint32_t>((count + size - 1) / size);
}

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
    template <typename Push>
    void run(std::span<const uint32_t> spirv, std::vector<const Buffer*> buffers, const Push& push,
             uint32_t groups) {
        Pipeline pipeline(*s_device, "shader under test", spirv,
                          static_cast<uint32_t>(buffers.size()), sizeof(Push));
        pipeline.bind(buffers);
        s_device->run(pipeline, push, groups);
    }
    static std::vector<float> read(const Buffer& buffer, size_t count) {
        const auto* data = static_cast<const float*>(buffer.data());
        return {data, data + count};
    }

    // The product of real weights `w` through a matmul pipeline against the CPU's dequantisation
    // of the same bytes and a double-precision product: one token and a tile and a half of them,
    // with a bias, accumulation, offsets and strides.
    void check_products(Pipeline& pipeline, const WeightMatrix& w, uint32_t rows_per_workgroup,
                        const std::string& what) {
        const auto rows = static_cast<uint32_t>(w.rows);
        const auto columns = static_cast<uint32_t>(w.columns);
        auto weights = buffer_with(w.data, rows * w.row_bytes);
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
            const Buffer* buffers[] = {weights.get(), in.get(), out.get(), b.get()};
            pipeline.bind(buffers);
            s_device->run(pipeline, push, groups_of(rows, rows_per_workgroup),
                          groups_of(tokens, kMatmulTile));
            const auto y = read(*out, before.size());
            std::vector<float> row(columns);
            for (uint32_t r = 0; r < rows; ++r) {
                dequantize(w.type, w.row(r), row.data(), columns);
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
                        << what << " " << tensor_type_info(w.type).name << " row " << r << " token "
                        << t;
                }
            }
            // Outside the piece's rows nothing changed.
            for (uint32_t t = 0; t < tokens; ++t) {
                for (uint32_t r = 0; r < first_row; ++r)
                    ASSERT_EQ(y[size_t{t} * stride + r], before[size_t{t} * stride + r]);
            }
        }
    }

    // Rows of `table` looked up by an embedding pipeline for token ids read from the ring
    // (wrapping around its end), each element times `scale`, against the CPU's, exactly.
    void check_embedding(Pipeline& pipeline, const WeightMatrix& table, float scale,
                         const std::string& what) {
        const auto columns = static_cast<uint32_t>(table.columns);
        const auto rows = static_cast<uint32_t>(table.rows);
        const std::vector<uint32_t> ring{rows - 1, 0, 77, 5};  // slots 3, 0, 1: tokens 5, rows-1, 0
        auto weights = buffer_with(table.data, rows * table.row_bytes);
        auto tokens = buffer_with(ring), out = buffer_with(nullptr, size_t{3} * columns * 4);
        const EmbeddingPush push{columns, 0, rows, 3, 4, scale};
        const Buffer* buffers[] = {weights.get(), tokens.get(), out.get()};
        pipeline.bind(buffers);
        s_device->run(pipeline, push, 3);
        const auto x = read(*out, size_t{3} * columns);
        std::vector<float> row(columns);
        const uint32_t expected_tokens[] = {5, rows - 1, 0};
        for (uint32_t t = 0; t < 3; ++t) {
            dequantize(table.type, table.row(expected_tokens[t]), row.data(), columns);
            for (uint32_t c = 0; c < columns; ++c) {
                ASSERT_EQ(x[t * columns + c], row[c] * scale)
                    << what << " token " << t << " column " << c;
            }
        }
    }

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

    // The grouped expert product (matmul.comp's EXPERTS variant) of stacked experts `w`,
    // `used` of `experts` per token (defined below, beside the routes it draws).
    void check_expert_products(Pipeline& pipeline, const WeightMatrix& w, uint32_t experts,
                               uint32_t used, bool by_token, uint32_t rows_per_workgroup,
                               const std::string& what);

protected:
    static inline Device* s_device = nullptr;
    std::mt19937 m_random{11};
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

// x * weight / sqrt(mean(x^2) + epsilon) of one row, in double precision.
std::vector<double> rms_normalized(const float* x, const std::vector<float>& weight,
                                   double epsilon) {
    const size_t dim = weight.size();
    double squares = 0;
    for (size_t i = 0; i < dim; ++i) squares += double(x[i]) * x[i];
    const double scale = 1.0 / std::sqrt(squares / dim + epsilon);
    std::vector<double> y(dim);
    for (size_t i = 0; i < dim; ++i) y[i] = x[i] * scale * weight[i];
    return y;
}

// A token's activations per row, and Qwen3's and Gemma 3's per-head norms (tokens x heads rows
// of head_dim sharing one weight), which the backend runs in place: the same buffer bound as
// input and output.
TEST_F(ShaderTest, RmsNormMatchesTheCpuInPlaceOrNot) {
    for (const bool in_place : {false, true}) {
        for (const auto& [rows, dim] :
             {std::pair{1u, 1u}, {3u, 67u}, {5u, 2048u}, {12u, 128u}, {12u, 256u}}) {
            const auto x = random_floats(size_t{rows} * dim, 3.0f);
            const auto weight = random_floats(dim);
            auto in = buffer_with(x), w = buffer_with(weight);
            auto out = in_place ? nullptr : buffer_with(nullptr, x.size() * 4);
            const Buffer* target = in_place ? in.get() : out.get();
            run(rmsnorm_spv, {in.get(), w.get(), target}, NormPush{rows, dim, 1e-5f, 0}, rows);
            const auto y = read(*target, x.size());
            for (uint32_t r = 0; r < rows; ++r) {
                const auto expected = rms_normalized(&x[r * dim], weight, 1e-5);
                for (uint32_t i = 0; i < dim; ++i) {
                    ASSERT_NEAR(y[r * dim + i], expected[i], 1e-4)
                        << rows << "x" << dim << (in_place ? " in place" : "");
                }
            }
        }
    }
}

// Gemma's post-norms: the normalised block output added into the residual stream.
TEST_F(ShaderTest, RmsNormAccumulatesIntoItsOutput) {
    const uint32_t rows = 4, dim = 320;
    const auto x = random_floats(size_t{rows} * dim, 3.0f);
    const auto weight = random_floats(dim), residual = random_floats(x.size());
    auto in = buffer_with(x), w = buffer_with(weight), out = buffer_with(residual);
    run(rmsnorm_spv, {in.get(), w.get(), out.get()}, NormPush{rows, dim, 1e-6f, kNormAccumulate},
        rows);
    const auto y = read(*out, x.size());
    for (uint32_t r = 0; r < rows; ++r) {
        const auto expected = rms_normalized(&x[r * dim], weight, 1e-6);
        for (uint32_t i = 0; i < dim; ++i)
            ASSERT_NEAR(y[r * dim + i], residual[r * dim + i] + expected[i], 1e-4) << r;
    }
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

// SwiGLU, Gemma's GeGLU and gpt-oss's clamped SwiGLU against the CPU kernels' scalar twins,
// over gates (and for the clamped one up values) wide enough to reach both tails of each curve
// and both sides of the clamps.
TEST_F(ShaderTest, GateActivationsMatchTheCpu) {
    struct Gate {
        std::span<const uint32_t> spirv;
        kernels::SwigluFunction cpu;
        const char* name;
        float up_scale = 1.0f;
    };
    for (const Gate& activation :
         {Gate{swiglu_spv, kernels::scalar::swiglu, "swiglu"},
          Gate{geglu_spv, kernels::scalar::geglu, "geglu"},
          Gate{clamped_swiglu_spv, kernels::scalar::clamped_swiglu, "clamped swiglu", 12.0f}}) {
        for (const uint32_t count : {1u, 65u, 5632u}) {
            const auto gate = random_floats(count, 12.0f);
            const auto up = random_floats(count, activation.up_scale);
            auto g = buffer_with(gate), u = buffer_with(up);
            run(activation.spirv, {g.get(), u.get()}, count, groups_of(count));
            const auto activated = read(*g, count);
            auto expected = gate;
            activation.cpu(expected.data(), up.data(), count);
            for (uint32_t i = 0; i < count; ++i) {
                ASSERT_NEAR(activated[i], expected[i], 1e-5 + 1e-6 * std::fabs(expected[i]))
                    << activation.name << " of " << gate[i];
            }
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
// dequantisation of the same bytes and a double-precision product.
TEST_F(ShaderTest, ProductsMatchTheCpuForEveryWeightType) {
    std::map<TensorType, int> covered;
    for (const char* name :
         {"stories260K.gguf", "synth-llama-256-F16.gguf", "synth-llama-256-BF16.gguf",
          "synth-llama-256-Q4_0.gguf", "synth-llama-256-Q4_1.gguf", "synth-llama-256-Q5_0.gguf",
          "synth-llama-256-Q5_1.gguf", "synth-llama-256-Q8_0.gguf", "synth-llama-256-Q4_K_M.gguf",
          "synth-llama-256-Q5_K.gguf", "synth-llama-256-Q6_K.gguf", "synth-llama-256-Q2_K.gguf",
          "synth-llama-256-Q3_K.gguf", "synth-llama-256-IQ4_NL.gguf",
          "synth-llama-256-IQ4_XS.gguf"}) {
        const auto model = Model::load(test::model_path(name));
        const ShaderSet shaders(*s_device, *model);
        const auto& layer = model->weights().layers[0];
        for (const WeightMatrix* w : {&layer.gate, &layer.down, &model->weights().output}) {
            ++covered[w->type];
            check_products(const_cast<Pipeline&>(shaders.matmul(w->type)), *w,
                           shaders.rows_per_workgroup(), name);
        }
    }
    // MXFP4 is only in gpt-oss's experts: Mxfp4ProductsAndRowsMatchTheCpu.
    for (const auto type : {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q4_0,
                            TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0,
                            TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K,
                            TensorType::Q6_K, TensorType::IQ4_NL, TensorType::IQ4_XS}) {
        EXPECT_GT(covered[type], 0) << tensor_type_info(type).name << " was not tested";
    }
}

// gpt-oss's MXFP4 experts, read from the file as one matrix of every expert's rows (1024 x 256):
// both product variants (subgroup sums and shared memory) and embedding lookups of its rows,
// which must equal the CPU's dequantisation exactly (a grid value times a power of two is exact).
TEST_F(ShaderTest, Mxfp4ProductsAndRowsMatchTheCpu) {
    const auto file = GgufFile::open(test::model_path("synth-gpt-oss-256-MXFP4_MOE.gguf"));
    const auto& info = s_device->info();
    for (const char* name : {"blk.0.ffn_gate_exps.weight"}) {
        const GgufTensor* tensor = file->find_tensor(name);
        ASSERT_NE(tensor, nullptr) << name;
        ASSERT_EQ(tensor->type, TensorType::MXFP4) << name;
        const auto columns = static_cast<int64_t>(tensor->row_length());
        const WeightMatrix w{tensor->type, tensor->data, static_cast<int64_t>(tensor->rows()),
                             columns, tensor_bytes(tensor->type, tensor->row_length())};
        Pipeline shared(*s_device, "matmul_shared MXFP4", matmul_shared_mxfp4_spv, 4,
                        sizeof(MatmulPush));
        check_products(shared, w, 1, name);
        if (info.subgroup_arithmetic && 64 % info.subgroup_size == 0) {
            Pipeline subgroups(*s_device, "matmul MXFP4", matmul_mxfp4_spv, 4, sizeof(MatmulPush));
            check_products(subgroups, w, 64 / info.subgroup_size, name);
        }
        Pipeline embedding(*s_device, "embedding MXFP4", embedding_mxfp4_spv, 3,
                           sizeof(EmbeddingPush));
        check_embedding(embedding, w, 1.0f, name);
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

// Gemma 2's final soft-cap, fused into the LM head's product: its real (tied) output matrix on
// inputs large enough to push logits into the cap's curve, against the CPU's softcap_score of a
// double-precision product.
TEST_F(ShaderTest, TheLogitSoftcapBendsTheProductLikeTheCpu) {
    const auto model = Model::load(test::model_path("synth-gemma2-256.gguf"));
    const float cap = model->config().final_softcap;
    ASSERT_GT(cap, 0.0f);
    const ShaderSet shaders(*s_device, *model);
    const WeightMatrix& w = model->weights().output;
    const auto rows = static_cast<uint32_t>(w.rows), columns = static_cast<uint32_t>(w.columns);
    const uint32_t tokens = 3;
    const auto x = random_floats(size_t{tokens} * columns, 200.0f);
    auto weights = buffer_with(w.data, rows * w.row_bytes), in = buffer_with(x);
    auto none = buffer_with(nullptr, 4), out = buffer_with(nullptr, size_t{tokens} * rows * 4);
    const MatmulPush push{rows, columns, tokens, 0, 0, rows, kMatmulSoftcap, cap};
    Pipeline& pipeline = const_cast<Pipeline&>(shaders.matmul(w.type));
    const Buffer* buffers[] = {weights.get(), in.get(), out.get(), none.get()};
    pipeline.bind(buffers);
    s_device->run(pipeline, push, groups_of(rows, shaders.rows_per_workgroup()),
                  groups_of(tokens, kMatmulTile));
    const auto y = read(*out, size_t{tokens} * rows);
    std::vector<float> row(columns);
    int bent = 0;  // logits where the cap moved the value by more than 1%
    for (uint32_t r = 0; r < rows; ++r) {
        dequantize(w.type, w.row(r), row.data(), columns);
        for (uint32_t t = 0; t < tokens; ++t) {
            double product = 0;
            for (uint32_t c = 0; c < columns; ++c) product += double(row[c]) * x[t * columns + c];
            const float expected = kernels::softcap_score(static_cast<float>(product), cap);
            bent += std::fabs(expected - product) > 0.01 * std::fabs(product);
            ASSERT_NEAR(y[size_t{t} * rows + r], expected, 1e-4) << "row " << r << " token " << t;
        }
    }
    EXPECT_GT(bent, 100) << "the inputs did not reach the cap";
}

// Embedding rows of every type, scaled as the model asks (Gemma: by sqrt(dim)) exactly as the
// CPU scales them.
TEST_F(ShaderTest, EmbeddingLookupsMatchTheCpu) {
    for (const char* name :
         {"stories260K.gguf", "synth-llama-256-Q4_K_M.gguf", "synth-llama-256-Q5_1.gguf",
          "synth-qwen2-256-Q8_0.gguf", "synth-gemma2-256-Q4_K_M.gguf", "synth-gemma3-256.gguf",
          "synth-llama-256-Q2_K.gguf", "synth-llama-256-Q3_K.gguf", "synth-llama-256-IQ4_NL.gguf",
          "synth-llama-256-IQ4_XS.gguf"}) {
        const auto model = Model::load(test::model_path(name));
        const ShaderSet shaders(*s_device, *model);
        const auto& table = model->weights().token_embedding;
        check_embedding(const_cast<Pipeline&>(shaders.embedding(table.type)), table,
                        model->config().embedding_scale, name);
    }
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

// Expert routing on the device against route_experts: random router logits, and logits drawn
// from a handful of values so that most rows hold ties, for few and many experts.
TEST_F(ShaderTest, RoutingChoosesAndWeighsAsTheCpuTiesIncluded) {
    std::uniform_int_distribution<int> level(-3, 3);
    for (const auto& [experts, used] : {std::pair{4u, 2u}, {8u, 1u}, {32u, 4u}, {128u, 8u}}) {
        for (const bool ties : {false, true}) {
            const uint32_t tokens = 37;
            auto logits = random_floats(size_t{tokens} * experts, 4.0f);
            if (ties) {
                for (auto& l : logits) l = 0.5f * static_cast<float>(level(m_random));
            }
            auto in = buffer_with(logits);
            auto chosen = buffer_with(nullptr, size_t{tokens} * used * 4);
            auto weights = buffer_with(nullptr, size_t{tokens} * used * 4);
            run(route_spv, {in.get(), chosen.get(), weights.get()},
                RoutePush{tokens, experts, used}, groups_of(tokens));
            const auto* ids = static_cast<const uint32_t*>(chosen->data());
            const auto w = read(*weights, size_t{tokens} * used);
            std::vector<ExpertChoice> expected(used);
            for (uint32_t t = 0; t < tokens; ++t) {
                route_experts(std::span(&logits[size_t{t} * experts], experts), expected);
                for (uint32_t k = 0; k < used; ++k) {
                    const size_t pair = size_t{t} * used + k;
                    ASSERT_EQ(ids[pair], static_cast<uint32_t>(expected[k].expert))
                        << experts << " experts, token " << t << " choice " << k
                        << (ties ? " (ties)" : "");
                    ASSERT_NEAR(w[pair], expected[k].weight, 1e-6);
                }
            }
        }
    }
}

// Each token's distinct experts, `used` of `experts`, as routing gives them.
std::vector<uint32_t> random_routes(std::mt19937& random, uint32_t tokens, uint32_t experts,
                                    uint32_t used) {
    std::vector<uint32_t> routes, all(experts);
    std::iota(all.begin(), all.end(), 0u);
    for (uint32_t t = 0; t < tokens; ++t) {
        std::shuffle(all.begin(), all.end(), random);
        routes.insert(routes.end(), all.begin(), all.begin() + used);
    }
    return routes;
}

// Grouping by expert: every pair listed once, under its expert, each expert's pairs in token
// order and in tiles of at most kMatmulTile; the list filled with empty tiles to the bound.
TEST_F(ShaderTest, ExpertTilesGroupEveryPairUnderItsExpert) {
    for (const auto& [tokens, experts, used] :
         {std::tuple{1u, 4u, 2u}, {9u, 4u, 2u}, {64u, 128u, 8u}, {70u, 8u, 3u}}) {
        const auto routes = random_routes(m_random, tokens, experts, used);
        const uint32_t pairs = tokens * used, bound = expert_tile_bound(pairs, experts);
        auto chosen = buffer_with(routes), order = buffer_with(nullptr, size_t{pairs} * 4);
        std::vector<uint32_t> stale(size_t{bound} * 3, 0xdeadu);
        auto tiles = buffer_with(stale);
        run(expert_tiles_spv, {chosen.get(), order.get(), tiles.get()},
            ExpertTilesPush{pairs, experts, bound}, 1);
        const auto* listed = static_cast<const uint32_t*>(order->data());
        const auto* tile = static_cast<const uint32_t*>(tiles->data());
        std::vector<int> seen(pairs, 0);
        uint32_t covered = 0, previous_expert = 0;
        for (uint32_t i = 0; i < bound; ++i) {
            const uint32_t expert = tile[3 * i], first = tile[3 * i + 1], count = tile[3 * i + 2];
            if (count == 0) continue;
            ASSERT_LE(count, kMatmulTile);
            ASSERT_GE(expert, previous_expert);
            ASSERT_EQ(first, covered) << "tiles follow each other";
            previous_expert = expert;
            for (uint32_t j = first; j < first + count; ++j) {
                ASSERT_EQ(routes[listed[j]], expert);
                if (j > 0 && routes[listed[j - 1]] == expert) {
                    ASSERT_LT(listed[j - 1], listed[j]);  // token order within an expert
                }
                ++seen[listed[j]];
            }
            covered += count;
        }
        EXPECT_EQ(covered, pairs);
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(pairs));
    }
}

// The grouped product of real stacked experts through `pipeline`, their tiles listed by
// expert_tiles for random routes of 11 tokens: gate rows read by token (`by_token`), or down rows
// written by pair with each expert's own bias (gpt-oss's experts have them), against the CPU's
// dequantisation of the chosen expert's rows; with the experts split in two pieces, each
// dispatch writes only its experts'.
void ShaderTest::check_expert_products(Pipeline& pipeline, const WeightMatrix& w, uint32_t experts,
                                       uint32_t used, bool by_token, uint32_t rows_per_workgroup,
                                       const std::string& what) {
    const uint32_t rows = static_cast<uint32_t>(w.rows) / experts;
    const auto columns = static_cast<uint32_t>(w.columns);
    const uint32_t tokens = 11, pairs = tokens * used;
    const uint32_t bound = expert_tile_bound(pairs, experts);
    const auto routes = random_routes(m_random, tokens, experts, used);
    auto chosen = buffer_with(routes), order = buffer_with(nullptr, size_t{pairs} * 4);
    auto tiles = buffer_with(nullptr, size_t{bound} * 12);
    Pipeline grouping(*s_device, "expert_tiles", expert_tiles_spv, 3, sizeof(ExpertTilesPush));
    const Buffer* grouped[] = {chosen.get(), order.get(), tiles.get()};
    grouping.bind(grouped);
    s_device->run(grouping, ExpertTilesPush{pairs, experts, bound}, 1);
    const auto* listed = static_cast<const uint32_t*>(order->data());
    const auto x = random_floats(size_t{by_token ? tokens : pairs} * columns);
    const std::vector<float> before(size_t{pairs} * rows, -7.0f);
    const auto bias = random_floats(size_t{experts} * rows);
    auto in = buffer_with(x), out = buffer_with(before), biases = buffer_with(bias);
    const uint32_t half = experts / 2;
    const uint32_t flags = by_token ? kExpertInputByToken : kExpertOutputByPair | kMatmulBias;
    for (const uint32_t first_expert : {0u, half}) {
        const size_t piece_bytes = size_t{half} * rows * w.row_bytes;
        auto weights = buffer_with(w.row(first_expert * rows), piece_bytes);
        const Buffer* buffers[] = {weights.get(), in.get(),    out.get(),
                                   biases.get(),  order.get(), tiles.get()};
        pipeline.bind(buffers);
        const ExpertMatmulPush push{rows, columns, first_expert, half, rows, flags, used, 0};
        s_device->run(pipeline, push, groups_of(rows, rows_per_workgroup), bound);
    }
    const auto* y = static_cast<const float*>(out->data());
    std::vector<float> row(columns);
    for (uint32_t entry = 0; entry < pairs; ++entry) {
        const uint32_t pair = listed[entry], expert = routes[pair];
        const uint32_t input = by_token ? pair / used : entry;
        const uint32_t output = by_token ? entry : pair;
        for (uint32_t r = 0; r < rows; ++r) {
            dequantize(w.type, w.row(expert * rows + r), row.data(), columns);
            double expected = by_token ? 0.0 : bias[size_t{expert} * rows + r];
            double magnitude = 0;
            for (uint32_t c = 0; c < columns; ++c) {
                const double term = double(row[c]) * x[size_t{input} * columns + c];
                expected += term;
                magnitude += std::fabs(term);
            }
            ASSERT_NEAR(y[size_t{output} * rows + r], expected, 1e-5 * magnitude + 1e-6)
                << what << (by_token ? " by token" : " by pair") << ", pair " << pair << " row "
                << r;
        }
    }
}

// synth-qwen3moe's experts: F32, and Q4_K with a Q6_K down in layer 1.
TEST_F(ShaderTest, GroupedExpertProductsReadTheChosenExpertsRows) {
    for (const char* name : {"synth-qwen3moe-256.gguf", "synth-qwen3moe-256-Q4_K_M.gguf"}) {
        const auto model = Model::load(test::model_path(name));
        const ShaderSet shaders(*s_device, *model);
        const auto experts = static_cast<uint32_t>(model->config().expert_count);
        const auto used = static_cast<uint32_t>(model->config().experts_used);
        const auto& layer = model->weights().layers[1];
        for (const bool by_token : {true, false}) {
            const WeightMatrix& w = by_token ? layer.expert_gate : layer.expert_down;
            check_expert_products(const_cast<Pipeline&>(shaders.expert_matmul(w.type)), w, experts,
                                  used, by_token, shaders.rows_per_workgroup(), name);
        }
    }
}

// gpt-oss's MXFP4 experts (4 experts, 2 used), read from the file as stacked tensors, through
// both variants of the grouped product (subgroup sums and shared memory).
TEST_F(ShaderTest, GroupedExpertProductsReadMxfp4Experts) {
    const auto file = GgufFile::open(test::model_path("synth-gpt-oss-256-MXFP4_MOE.gguf"));
    const auto& info = s_device->info();
    for (const bool by_token : {true, false}) {
        const char* name = by_token ? "blk.0.ffn_gate_exps.weight" : "blk.0.ffn_down_exps.weight";
        const GgufTensor* tensor = file->find_tensor(name);
        ASSERT_NE(tensor, nullptr) << name;
        ASSERT_EQ(tensor->type, TensorType::MXFP4) << name;
        const auto experts = static_cast<uint32_t>(tensor->shape[2]);
        const WeightMatrix w{tensor->type, tensor->data, static_cast<int64_t>(tensor->rows()),
                             static_cast<int64_t>(tensor->row_length()),
                             tensor_bytes(tensor->type, tensor->row_length())};
        Pipeline shared(*s_device, "matmul_experts_shared MXFP4",
                        expert_product_spirv(w.type, false), 6, sizeof(ExpertMatmulPush));
        check_expert_products(shared, w, experts, 2, by_token, 1, name);
        if (info.subgroup_arithmetic && 64 % info.subgroup_size == 0) {
            Pipeline subgroups(*s_device, "matmul_experts MXFP4",
                               expert_product_spirv(w.type, true), 6, sizeof(ExpertMatmulPush));
            check_expert_products(subgroups, w, experts, 2, by_token, 64 / info.subgroup_size,
                                  name);
        }
    }
}

// The mixture's output: each token's experts' rows weighted and added into x.
TEST_F(ShaderTest, ExpertSumAddsTheWeightedExpertsIntoX) {
    const uint32_t tokens = 5, used = 3, dim = 67;
    const auto x = random_floats(size_t{tokens} * dim);
    const auto outputs = random_floats(size_t{tokens} * used * dim);
    const auto weights = random_floats(size_t{tokens} * used);
    auto residual = buffer_with(x), in = buffer_with(outputs), w = buffer_with(weights);
    run(expert_sum_spv, {residual.get(), in.get(), w.get()}, ExpertSumPush{tokens * dim, dim, used},
        groups_of(tokens * dim));
    const auto y = read(*residual, x.size());
    for (uint32_t t = 0; t < tokens; ++t) {
        for (uint32_t i = 0; i < dim; ++i) {
            double expected = x[t * dim + i];
            for (uint32_t k = 0; k < used; ++k)
                expected += double(weights[t * used + k]) * outputs[(t * used + k) * dim + i];
            ASSERT_NEAR(y[t * dim + i], expected, 1e-5);
        }
    }
}

}  // namespace
}  // namespace hearth::vulkan
