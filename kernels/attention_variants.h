// The per-ISA attention blocks behind attention_block(); tests call them directly to compare.
#pragma once

#include "kernels/attention.h"

namespace hearth::kernels {

namespace scalar {
void attention_block(AttentionRow* rows, size_t row_count, const uint16_t* keys,
                     const uint16_t* values, size_t stride, size_t count, size_t head_dim,
                     AttentionScoring scoring, float* scratch);
void attention_block_q8_0(AttentionRow* rows, size_t row_count, const BlockQ8_0* keys,
                          const BlockQ8_0* values, size_t stride, size_t count, size_t head_dim,
                          AttentionScoring scoring, float* scratch);
}  // namespace scalar

namespace avx2 {
void attention_block(AttentionRow* rows, size_t row_count, const uint16_t* keys,
                     const uint16_t* values, size_t stride, size_t count, size_t head_dim,
                     AttentionScoring scoring, float* scratch);
void attention_block_q8_0(AttentionRow* rows, size_t row_count, const BlockQ8_0* keys,
                          const BlockQ8_0* values, size_t stride, size_t count, size_t head_dim,
                          AttentionScoring scoring, float* scratch);
}  // namespace avx2

namespace avx512 {
void attention_block(AttentionRow* rows, size_t row_count, const uint16_t* keys,
                     const uint16_t* values, size_t stride, size_t count, size_t head_dim,
                     AttentionScoring scoring, float* scratch);
void attention_block_q8_0(AttentionRow* rows, size_t row_count, const BlockQ8_0* keys,
                          const BlockQ8_0* values, size_t stride, size_t count, size_t head_dim,
                          AttentionScoring scoring, float* scratch);
}  // namespace avx512

}  // namespace hearth::kernels
