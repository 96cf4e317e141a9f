// The products (every weight type's dequantisation inside matmul.comp, the shared-memory
// variant, the fused logit soft-cap) and the embedding lookups against the CPU's dequantisation
// of the same bytes, on a real Vulkan device (Mesa's lavapipe here).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "engine/compute/vulkan/shader_set.h"
#include "engine/format/gguf_file.h"
#include "engine/format/tensor_types.h"
#include "engine/model/model.h"
#include "kernels/attention.h"
#include "shaders/embedding_mxfp4_spv.h"
#include "shaders/matmul_f32_spv.h"
#include "shaders/matmul_mxfp4_spv.h"
#include "shaders/matmul_shared_f32_spv.h"
#include "shaders/matmul_shared_mxfp4_spv.h"
#include "tests/engine/compute/vulkan/shader_fixture.h"
#include "tests/support/shared_data.h"

namespace hearth::vulkan {
namespace {

class ShaderTest : public ShaderFixture {
protected:
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

    // Through the shared-memory variant, and the subgroup one where the device has subgroup
    // arithmetic in subgroups that divide a workgroup.
    void check_both_variants(const WeightMatrix& w, std::span<const uint32_t> shared_spirv,
                             std::span<const uint32_t> subgroup_spirv, const std::string& what) {
        Pipeline shared(*s_device, "matmul_shared", shared_spirv, 4, sizeof(MatmulPush));
        check_products(shared, w, 1, what);
        const auto& info = s_device->info();
        if (info.subgroup_arithmetic && 64 % info.subgroup_size == 0) {
            Pipeline subgroups(*s_device, "matmul", subgroup_spirv, 4, sizeof(MatmulPush));
            check_products(subgroups, w, 64 / info.subgroup_size, what);
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
};

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
    for (const char* name : {"blk.0.ffn_gate_exps.weight"}) {
        const GgufTensor* tensor = file->find_tensor(name);
        ASSERT_NE(tensor, nullptr) << name;
        ASSERT_EQ(tensor->type, TensorType::MXFP4) << name;
        const auto columns = static_cast<int64_t>(tensor->row_length());
        const WeightMatrix w{tensor->type, tensor->data, static_cast<int64_t>(tensor->rows()),
                             columns, tensor_bytes(tensor->type, tensor->row_length())};
        check_both_variants(w, matmul_shared_mxfp4_spv, matmul_mxfp4_spv, name);
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

// Rows of any length through both variants: a partial last group (7, 36, 100 columns) takes the
// element-by-element path, whole groups on rows that start on a vec4 the four-at-a-time one (96,
// 100), and 38 columns put every other row off a vec4.
TEST_F(ShaderTest, ProductsOfAnyRowLengthMatchTheCpu) {
    for (const uint32_t columns : {7u, 36u, 38u, 96u, 100u}) {
        const uint32_t rows = 37;
        const auto values = random_floats(size_t{rows} * columns);
        const WeightMatrix w{TensorType::F32, reinterpret_cast<const std::byte*>(values.data()),
                             rows, columns, size_t{columns} * 4};
        const auto name = std::to_string(columns) + " columns";
        check_both_variants(w, matmul_shared_f32_spv, matmul_f32_spv, name);
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

}  // namespace
}  // namespace hearth::vulkan
