// The rolling window's cache shift: dropping positions from the middle of the KV cache and
// re-rotating the later keys for their new positions.
//
// What a shift can and cannot reproduce: the first layer's keys and values depend only on the
// token and its position, so after a shift they must equal a fresh prefill of the shortened
// history. Deeper layers' entries were computed while attending to the dropped tokens and
// legitimately differ from a fresh prefill (llama.cpp's context shift behaves the same way);
// the session tests check that generation carries on past the context through shifts.
#include "engine/compute/kv_shift.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/model/reference_forward.h"
#include "tests/support/shared_data.h"

namespace hearth {
namespace {

constexpr int kStart = 5, kCount = 17, kLength = 48;

struct Caches {
    KvCache shifted;  // prefilled with every token, then shifted
    KvCache fresh;    // prefilled with the shortened history
};

Caches prefill_both(const Model& model) {
    ReferenceForward forward(model);
    std::vector<int32_t> tokens;
    for (int i = 0; i < kLength; ++i)
        tokens.push_back(1 + (i * 37 + 11) % (model.config().vocab_size - 1));
    std::vector<int32_t> shortened(tokens.begin(), tokens.begin() + kStart);
    shortened.insert(shortened.end(), tokens.begin() + kStart + kCount, tokens.end());
    Caches caches{forward.make_cache(64), forward.make_cache(64)};
    forward.forward(tokens, caches.shifted, LogitRows::None);
    forward.forward(shortened, caches.fresh, LogitRows::None);
    return caches;
}

float first_layer_difference(const KvCache& a, const KvCache& b, bool keys) {
    float worst = 0.0f;
    for (int position = 0; position < b.size(); ++position) {
        const float* x = keys ? a.key(0, position) : a.value(0, position);
        const float* y = keys ? b.key(0, position) : b.value(0, position);
        for (int i = 0; i < a.kv_dim(); ++i) worst = std::max(worst, std::fabs(x[i] - y[i]));
    }
    return worst;
}

const char* const kModels[] = {
    "stories260K.gguf",            // adjacent-pair RoPE
    "synth-qwen2-256-Q8_0.gguf",   // NEOX halves
    "synth-llama3-256-Q8_0.gguf",  // rope_freqs factors
    "synth-phi3-256.gguf",         // partial rotation, LongRoPE factors and magnitude
    "synth-gemma3-256.gguf",       // a sliding-window layer's own base
};

TEST(KvShift, FirstLayerEntriesMatchAFreshPrefill) {
    for (const char* name : kModels) {
        const auto model = Model::load(test::model_path(name));
        auto caches = prefill_both(*model);
        const LayerRopes ropes(*model, caches.shifted.capacity());
        const float before = first_layer_difference(caches.shifted, caches.fresh, true);
        erase_positions(caches.shifted, ropes, model->config().head_dim, kStart, kCount);
        ASSERT_EQ(caches.shifted.size(), caches.fresh.size());
        EXPECT_LT(first_layer_difference(caches.shifted, caches.fresh, true), 2e-5f) << name;
        EXPECT_EQ(first_layer_difference(caches.shifted, caches.fresh, false), 0.0f) << name;
        EXPECT_GT(before, 0.1f) << name;  // the comparison can fail
    }
}

// The reference cache's keys stored as `Element`s (what the CPU backend keeps), shifted, and read
// back as floats.
template <typename Element>
std::vector<float> shifted_keys(const Model& model, const KvCache& prefilled) {
    const auto& config = model.config();
    BasicKvCache<Element> stored(config.layer_count, 64, config.kv_dim());
    stored.reserve_positions(kLength);
    for (int layer = 0; layer < config.layer_count; ++layer) {
        for (int position = 0; position < kLength; ++position) {
            write_values(prefilled.key(layer, position), stored.key(layer, position),
                         static_cast<size_t>(config.kv_dim()));
        }
    }
    stored.commit(kLength);
    erase_positions(stored, LayerRopes(model, stored.capacity()), config.head_dim, kStart, kCount);
    std::vector<float> first_layer(static_cast<size_t>(stored.size() * config.kv_dim()));
    for (int position = 0; position < stored.size(); ++position) {
        read_values(stored.key(0, position), &first_layer[position * config.kv_dim()],
                    static_cast<size_t>(config.kv_dim()));
    }
    return first_layer;
}

// The CPU backend keeps keys in f16: the same shift, within f16 rounding.
TEST(KvShift, HalfPrecisionCachesShiftTheSameWay) {
    for (const char* name : kModels) {
        const auto model = Model::load(test::model_path(name));
        const auto caches = prefill_both(*model);
        const int kv_dim = model->config().kv_dim();
        const auto shifted = shifted_keys<uint16_t>(*model, caches.shifted);
        for (int position = 0; position < caches.fresh.size(); ++position) {
            for (int i = 0; i < kv_dim; ++i) {
                const float expected = caches.fresh.key(0, position)[i];
                EXPECT_NEAR(shifted[position * kv_dim + i], expected,
                            2e-3f * std::max(1.0f, std::fabs(expected)))
                    << name << " position " << position;
            }
        }
    }
}

// Or in Q8_0 blocks: each head is dequantised, rotated and quantised again. A key was rounded
// to its block's step (largest magnitude / 127) when stored; the rotation mixes two such
// errors (at most sqrt(2) half-steps of the head's largest), and storing it again rounds once
// more, to a step of a rotated block (at most sqrt(2) times the head's largest over 127).
TEST(KvShift, Q8_0CachesShiftTheSameWayWithinTheirSteps) {
    for (const char* name : kModels) {
        const auto model = Model::load(test::model_path(name));
        const int head_dim = model->config().head_dim;
        if (head_dim % kernels::kBlock32 != 0) continue;  // such models keep an F16 cache
        const auto caches = prefill_both(*model);
        const int kv_dim = model->config().kv_dim();
        const auto shifted = shifted_keys<kernels::BlockQ8_0>(*model, caches.shifted);
        float worst_steps = 0.0f;
        for (int position = 0; position < caches.fresh.size(); ++position) {
            for (int head = 0; head < kv_dim; head += head_dim) {
                const float* expected = caches.fresh.key(0, position) + head;
                float largest = 0.0f;
                for (int i = 0; i < head_dim; ++i)
                    largest = std::max(largest, std::fabs(expected[i]));
                const float step = largest / 127.0f;
                for (int i = 0; i < head_dim; ++i) {
                    const float difference =
                        std::fabs(shifted[position * kv_dim + head + i] - expected[i]);
                    worst_steps = std::max(worst_steps, difference / step);
                    EXPECT_LE(difference, 1.5f * std::sqrt(2.0f) * step)
                        << name << " position " << position << " element " << head + i;
                }
            }
        }
        std::printf("%s: a shifted Q8_0 key is off by at most %.2f steps\n", name, worst_steps);
    }
}

TEST(KvShift, ErasingMovesLaterPositionsDown) {
    KvCache cache(2, 8, 4);
    cache.reserve_positions(6);
    for (int layer = 0; layer < 2; ++layer) {
        for (int position = 0; position < 6; ++position) {
            for (int i = 0; i < 4; ++i) {
                cache.key(layer, position)[i] = static_cast<float>(layer * 100 + position);
                cache.value(layer, position)[i] = static_cast<float>(-position);
            }
        }
    }
    cache.commit(6);
    cache.erase(1, 2);
    EXPECT_EQ(cache.size(), 4);
    EXPECT_EQ(cache.key(1, 1)[0], 103.0f);
    EXPECT_EQ(cache.value(0, 3)[3], -5.0f);
    cache.erase(2, 2);  // the tail: a truncation
    EXPECT_EQ(cache.size(), 2);
    EXPECT_THROW(cache.erase(1, 2), std::out_of_range);
}

}  // namespace
}  // namespace hearth
