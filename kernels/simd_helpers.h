// Small AVX2 helpers shared by the SIMD kernel files. Each file that includes this gets its own
// copies (an unnamed namespace): those files are compiled for different instruction sets, and
// one shared inline definition could be merged by the linker into the widest file's version.
#pragma once

#include <immintrin.h>

namespace hearth::kernels {
namespace {

inline __m256i load(const void* p) {
    return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

inline float horizontal_sum(__m256 v) {
    const __m128 sum = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 pairs = _mm_add_ps(sum, _mm_movehl_ps(sum, sum));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_movehdup_ps(pairs)));
}

}  // namespace
}  // namespace hearth::kernels
