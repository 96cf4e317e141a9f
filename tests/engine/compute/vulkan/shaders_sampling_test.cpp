// Choosing the next token on the device: argmax and sampling against the CPU sampler's rules,
// on a real Vulkan device (Mesa's lavapipe here).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/compute/vulkan/shader_set.h"
#include "engine/generation/sampler.h"
#include "shaders/argmax_spv.h"
#include "shaders/sample_spv.h"
#include "tests/engine/compute/vulkan/shader_fixture.h"

namespace hearth::vulkan {
namespace {

class ShaderTest : public ShaderFixture {};

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

}  // namespace
}  // namespace hearth::vulkan
