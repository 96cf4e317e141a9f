// Dropping positions from the middle of a KV cache: the cached keys after the gap were rotated
// for their old positions, so they are rotated back by the gap's length. Because RoPE is a
// rotation, rotating by -count equals a fresh rotation at the new position (up to rounding; a Q8_0
// cache's keys are dequantised, rotated and quantised again, one head at a time).
#pragma once

#include "engine/compute/kv_cache.h"
#include "engine/model/rope.h"

namespace hearth {

template <typename Element>
void erase_positions(BasicKvCache<Element>& cache, const LayerRopes& ropes, int head_dim, int start,
                     int count);

}  // namespace hearth
