// The rotation step of rotary embedding: the scalar version against the rotation's definition in
// double precision, and the machine's version against the scalar one bit for bit, for both
// pairings, on pair counts with and without a tail.
#include "kernels/rope.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tests/support/random_weights.h"

namespace hearth::kernels {
namespace {

const size_t kPairs[] = {1, 3, 4, 5, 8, 9, 16, 32, 40, 64, 67};
const RopePairing kPairings[] = {RopePairing::Adjacent, RopePairing::Halves};

struct Angles {
    std::vector<float> cosines, sines;
};

Angles angles(size_t pairs, std::mt19937& random) {
    std::uniform_real_distribution<float> angle(-10.0f, 10.0f);
    Angles result;
    for (size_t i = 0; i < pairs; ++i) {
        const float a = angle(random);
        result.cosines.push_back(std::cos(a));
        result.sines.push_back(std::sin(a));
    }
    return result;
}

// Where pair i's two dimensions lie. A head holds two more dimensions than the pairs cover, as a
// partially rotated head does: they must stay as they are.
size_t first_of(RopePairing pairing, size_t i) {
    return pairing == RopePairing::Adjacent ? 2 * i : i;
}
size_t second_of(RopePairing pairing, size_t i, size_t pairs) {
    return pairing == RopePairing::Adjacent ? 2 * i + 1 : i + pairs;
}

TEST(RopeRotate, ScalarIsTheRotation) {
    std::mt19937 random(21);
    for (const RopePairing pairing : kPairings) {
        for (const size_t pairs : kPairs) {
            const auto head = random_floats(2 * pairs + 2, random, 4.0f);
            const Angles a = angles(pairs, random);
            auto rotated = head;
            scalar::rope_rotate(pairing, rotated.data(), a.cosines.data(), a.sines.data(), pairs);
            for (size_t i = 0; i < pairs; ++i) {
                const double x0 = head[first_of(pairing, i)];
                const double x1 = head[second_of(pairing, i, pairs)];
                const double c = a.cosines[i], s = a.sines[i];
                EXPECT_NEAR(rotated[first_of(pairing, i)], x0 * c - x1 * s, 1e-5) << pairs;
                EXPECT_NEAR(rotated[second_of(pairing, i, pairs)], x0 * s + x1 * c, 1e-5) << pairs;
            }
            EXPECT_EQ(rotated[2 * pairs], head[2 * pairs]);
            EXPECT_EQ(rotated[2 * pairs + 1], head[2 * pairs + 1]);
        }
    }
}

TEST(RopeRotate, MachineGivesTheScalarBits) {
    std::mt19937 random(22);
    for (const RopePairing pairing : kPairings) {
        for (const size_t pairs : kPairs) {
            const auto head = random_floats(2 * pairs + 2, random, 4.0f);
            const Angles a = angles(pairs, random);
            auto expected = head, got = head;
            scalar::rope_rotate(pairing, expected.data(), a.cosines.data(), a.sines.data(), pairs);
            rope_rotate(pairing, got.data(), a.cosines.data(), a.sines.data(), pairs);
            ASSERT_EQ(std::memcmp(expected.data(), got.data(), head.size() * sizeof(float)), 0)
                << pairs << " pairs, "
                << (pairing == RopePairing::Adjacent ? "adjacent" : "halves");
        }
    }
}

}  // namespace
}  // namespace hearth::kernels
