// A mixture of experts' shaders: routing, grouping the chosen pairs by expert, the grouped
// products of stacked experts (F32, K-quants, MXFP4) and the weighted sum, against the CPU's,
// on a real Vulkan device (Mesa's lavapipe here).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "engine/compute/vulkan/expert_products.h"
#include "engine/compute/vulkan/shader_set.h"
#include "engine/format/gguf_file.h"
#include "engine/format/tensor_types.h"
#include "engine/model/expert_routing.h"
#include "engine/model/model.h"
#include "shaders/expert_sum_spv.h"
#include "shaders/expert_tiles_spv.h"
#include "shaders/route_spv.h"
#include "tests/engine/compute/vulkan/shader_fixture.h"
#include "tests/support/shared_data.h"

namespace hearth::vulkan {
namespace {

class ShaderTest : public ShaderFixture {
public:
    // The grouped expert product (matmul.comp's EXPERTS variant) of stacked experts `w`,
    // `used` of `experts` per token (defined below, beside the routes it draws).
    void check_expert_products(Pipeline& pipeline, const WeightMatrix& w, uint32_t experts,
                               uint32_t used, bool by_token, uint32_t rows_per_workgroup,
                               const std::string& what);
};

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
