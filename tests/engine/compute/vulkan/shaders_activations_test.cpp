// The steps between a layer's products: RMS norms (alone, in place, accumulating) and the gate
// activations (SwiGLU, GeGLU, gpt-oss's clamped SwiGLU) against the CPU's, on a real Vulkan
// device (Mesa's lavapipe here).
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <utility>

#include "engine/compute/vulkan/shader_set.h"
#include "kernels/swiglu.h"
#include "shaders/clamped_swiglu_spv.h"
#include "shaders/geglu_spv.h"
#include "shaders/rmsnorm_spv.h"
#include "shaders/swiglu_spv.h"
#include "tests/engine/compute/vulkan/shader_fixture.h"

namespace hearth::vulkan {
namespace {

class ShaderTest : public ShaderFixture {};

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

}  // namespace
}  // namespace hearth::vulkan
