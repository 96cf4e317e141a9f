#include "engine/compute/kv_shift.h"

#include <algorithm>
#include <vector>

#include "kernels/half.h"

namespace hearth {
namespace {

float to_float(float value) {
    return value;
}
float to_float(uint16_t bits) {
    return kernels::half_to_float(bits);
}
void store(float value, float& slot) {
    slot = value;
}
void store(float value, uint16_t& slot) {
    slot = kernels::float_to_half(value);
}

}  // namespace

template <typename Element>
void erase_positions(BasicKvCache<Element>& cache, const LayerRopes& ropes, int head_dim, int start,
                     int count) {
    cache.erase(start, count);
    if (count == 0) return;
    const int kv_dim = cache.kv_dim();
    std::vector<float> head(static_cast<size_t>(head_dim));
    for (int layer = 0; layer < cache.layer_count(); ++layer) {
        const Rope* rope = ropes.layer(layer);
        if (rope == nullptr) continue;  // keys of an unrotated layer need no moving
        for (int position = std::max(start, cache.oldest(layer)); position < cache.size();
             ++position) {
            Element* key = cache.key(layer, position);
            for (int offset = 0; offset < kv_dim; offset += head_dim) {
                for (int i = 0; i < head_dim; ++i) head[i] = to_float(key[offset + i]);
                rope->shift(head.data(), -count);
                for (int i = 0; i < head_dim; ++i) store(head[i], key[offset + i]);
            }
        }
    }
}

template void erase_positions(KvCache&, const LayerRopes&, int, int, int);
template void erase_positions(KvCacheF16&, const LayerRopes&, int, int, int);

}  // namespace hearth
