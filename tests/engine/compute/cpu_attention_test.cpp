// CPU attention over an F16 cache: against a double-precision softmax, and bit for bit the same
// for a token whether it came alone (a decode step, whose spans run in parallel) or inside a
// chunk (spans folded in one item), past several spans of context; with and without a sliding
// window (a window shorter than a span, one that crosses span edges, and none); and the same for
// several sequences' requests run in one dispatch as for each run alone.
#include "engine/compute/cpu_attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/half.h"
#include "tests/support/random_weights.h"

namespace hearth {
namespace {

// Four query heads per KV head.
const AttentionShape kShape{64, 8, 2, {0.125f}};
constexpr size_t kWindows[] = {0, 100, 300};
constexpr size_t kQueryDim = 8 * 64, kKvDim = 2 * 64;

// A one-layer cache of `positions` random keys and values.
KvCacheF16 random_cache(size_t positions, std::mt19937& random) {
    KvCacheF16 cache(1, static_cast<int>(positions), static_cast<int>(kKvDim));
    for (size_t p = 0; p < positions; ++p) {
        const auto keys = random_floats(kKvDim, random), values = random_floats(kKvDim, random);
        for (size_t i = 0; i < kKvDim; ++i) {
            cache.key(0, static_cast<int>(p))[i] = kernels::float_to_half(keys[i]);
            cache.value(0, static_cast<int>(p))[i] = kernels::float_to_half(values[i]);
        }
    }
    return cache;
}

// Head h of the token at `position`, by the definition; with a sink, e^sink joins the softmax's
// denominator.
std::vector<double> expected_head(const KvCacheF16& cache, const float* query, size_t head,
                                  size_t position, size_t window, const float* sink = nullptr) {
    const size_t head_dim = kShape.head_dim, kv = head / (kShape.heads / kShape.kv_heads);
    const size_t first = window > 0 && position + 1 > window ? position + 1 - window : 0;
    std::vector<double> scores(position + 1, 0.0);
    double largest = -1e300;
    for (size_t p = first; p <= position; ++p) {
        const uint16_t* key = cache.key(0, static_cast<int>(p)) + kv * head_dim;
        double dot = 0.0;
        for (size_t d = 0; d < head_dim; ++d) dot += query[d] * kernels::half_to_float(key[d]);
        scores[p] = dot / std::sqrt(static_cast<double>(head_dim));
        largest = std::max(largest, scores[p]);
    }
    double total = sink != nullptr ? std::exp(*sink - largest) : 0.0;
    for (size_t p = first; p <= position; ++p) total += (scores[p] = std::exp(scores[p] - largest));
    std::vector<double> out(head_dim, 0.0);
    for (size_t p = first; p <= position; ++p) {
        const uint16_t* value = cache.value(0, static_cast<int>(p)) + kv * head_dim;
        for (size_t d = 0; d < head_dim; ++d) {
            out[d] += scores[p] / total * kernels::half_to_float(value[d]);
        }
    }
    return out;
}

TEST(CpuAttention, DecodeStepsPastSeveralSpansAreTheSoftmax) {
    std::mt19937 random(11);
    const size_t positions = 700;  // three spans
    const auto cache = random_cache(positions, random);
    const auto queries = random_floats(kQueryDim, random);
    ThreadPool pool(2);
    CpuAttention attention(kShape, kernels::best_isa());
    for (const size_t window : kWindows) {
        for (const size_t position : {0, 255, 256, 300, 699}) {
            std::vector<float> out(kQueryDim);
            attention.run(pool, cache, 0, window, position, 1, queries.data(), out.data());
            for (size_t h = 0; h < kShape.heads; ++h) {
                const auto expected = expected_head(cache, &queries[h * 64], h, position, window);
                for (size_t d = 0; d < 64; ++d) {
                    ASSERT_NEAR(out[h * 64 + d], expected[d], 1e-4)
                        << "window " << window << " position " << position << " head " << h
                        << " dim " << d;
                }
            }
        }
    }
}

TEST(CpuAttention, ATokenGetsTheSameBitsAloneAsInAChunk) {
    std::mt19937 random(12);
    const size_t first = 230, count = 300;  // the chunk crosses into a third span
    const auto cache = random_cache(first + count, random);
    const auto queries = random_floats(count * kQueryDim, random);
    ThreadPool pool(2);
    CpuAttention attention(kShape, kernels::best_isa());
    for (const size_t window : kWindows) {
        std::vector<float> chunk(count * kQueryDim);
        attention.run(pool, cache, 0, window, first, count, queries.data(), chunk.data());
        for (size_t t = 0; t < count; t += 37) {
            std::vector<float> alone(kQueryDim);
            attention.run(pool, cache, 0, window, first + t, 1, &queries[t * kQueryDim],
                          alone.data());
            for (size_t i = 0; i < kQueryDim; ++i) {
                ASSERT_EQ(alone[i], chunk[t * kQueryDim + i])
                    << "window " << window << " token " << t << " element " << i;
            }
            const auto expected =
                expected_head(cache, &queries[t * kQueryDim], 0, first + t, window);
            ASSERT_NEAR(alone[0], expected[0], 1e-4) << "window " << window << " token " << t;
        }
    }
}

// gpt-oss's sinks, one logit per head from -2 to 3 (scores here are about ±0.3; e^3 takes 8% of
// the weight of 230 positions, far above the tolerance): on a decode step (its spans in parallel
// past 256 positions) and in a chunk, with and without a window, each head's output is the
// softmax with e^sink in its denominator, a token's bits the same alone as in the chunk.
TEST(CpuAttention, SinksJoinEachHeadsDenominatorAloneAndInAChunk) {
    std::mt19937 random(14);
    const size_t first = 230, count = 300;
    const auto cache = random_cache(first + count, random);
    const auto queries = random_floats(count * kQueryDim, random);
    std::vector<float> sinks(kShape.heads);
    for (size_t h = 0; h < sinks.size(); ++h) sinks[h] = -2.0f + 5.0f * h / (sinks.size() - 1);
    ThreadPool pool(2);
    CpuAttention attention(kShape, kernels::best_isa());
    for (const size_t window : kWindows) {
        std::vector<float> chunk(count * kQueryDim);
        attention.run(pool, cache, 0, window, first, count, queries.data(), chunk.data(),
                      sinks.data());
        for (const size_t t : {0, 26, 299}) {
            std::vector<float> alone(kQueryDim);
            attention.run(pool, cache, 0, window, first + t, 1, &queries[t * kQueryDim],
                          alone.data(), sinks.data());
            for (size_t h = 0; h < kShape.heads; ++h) {
                const auto expected = expected_head(cache, &queries[t * kQueryDim + h * 64], h,
                                                    first + t, window, &sinks[h]);
                for (size_t d = 0; d < 64; ++d) {
                    ASSERT_EQ(alone[h * 64 + d], chunk[t * kQueryDim + h * 64 + d])
                        << "window " << window << " token " << t << " head " << h;
                    ASSERT_NEAR(alone[h * 64 + d], expected[d], 1e-4)
                        << "window " << window << " token " << t << " head " << h;
                }
            }
        }
    }
}

// A batched step: decode rows of different lengths (one span, several spans run in parallel)
// and a prompt chunk, each over its own cache, in one run_all.
TEST(CpuAttention, RequestsRunTogetherGetTheBitsEachGetsAlone) {
    std::mt19937 random(13);
    const size_t lengths[] = {40, 700, 300, 520};
    const size_t counts[] = {1, 1, 1, 64};
    std::vector<KvCacheF16> caches;
    std::vector<std::vector<float>> queries;
    for (size_t i = 0; i < 4; ++i) {
        caches.push_back(random_cache(lengths[i], random));
        queries.push_back(random_floats(counts[i] * kQueryDim, random));
    }
    ThreadPool pool(2);
    CpuAttention attention(kShape, kernels::best_isa());
    for (const size_t window : kWindows) {
        std::vector<std::vector<float>> together(4), alone(4);
        std::vector<CpuAttention::Request<KvCacheF16>> requests;
        for (size_t i = 0; i < 4; ++i) {
            together[i].assign(counts[i] * kQueryDim, 0.0f);
            alone[i].assign(counts[i] * kQueryDim, 0.0f);
            const size_t first = lengths[i] - counts[i];
            requests.push_back(
                {&caches[i], 0, window, first, counts[i], queries[i].data(), together[i].data()});
            attention.run(pool, caches[i], 0, window, first, counts[i], queries[i].data(),
                          alone[i].data());
        }
        attention.run_all(pool, requests);
        for (size_t i = 0; i < 4; ++i) {
            for (size_t e = 0; e < alone[i].size(); ++e) {
                ASSERT_EQ(together[i][e], alone[i][e])
                    << "window " << window << " request " << i << " element " << e;
            }
        }
    }
}

}  // namespace
}  // namespace hearth
