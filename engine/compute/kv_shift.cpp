#include "engine/compute/kv_shift.h"

#include <algorithm>
#include <vector>

namespace hearth {

template <typename Element>
void erase_positions(BasicKvCache<Element>& cache, const LayerRopes& ropes, int head_dim, int start,
                     int count) {
    cache.erase(start, count);
    if (count == 0) return;
    const int head_elements = head_dim / kValuesPerElement<Element>;
    std::vector<float> head(static_cast<size_t>(head_dim));
    std::vector<float> cosines, sines;
    for (int layer = 0; layer < cache.layer_count(); ++layer) {
        const Rope* rope = ropes.layer(layer);
        if (rope == nullptr) continue;  // keys of an unrotated layer need no moving
        // Every key of the layer moves by the same -count positions: one set of angles.
        cosines.resize(rope->pairs());
        sines.resize(rope->pairs());
        rope->shift_angles(-count, cosines.data(), sines.data());
        for (int position = std::max(start, cache.oldest(layer)); position < cache.size();
             ++position) {
            Element* key = cache.key(layer, position);
            for (int offset = 0; offset < cache.row_size(); offset += head_elements) {
                read_values(key + offset, head.data(), head.size());
                rope->rotate(head.data(), cosines.data(), sines.data());
                write_values(head.data(), key + offset, head.size());
            }
        }
    }
}

template void erase_positions(KvCache&, const LayerRopes&, int, int, int);
template void erase_positions(KvCacheF16&, const LayerRopes&, int, int, int);
template void erase_positions(KvCacheQ8_0&, const LayerRopes&, int, int, int);

}  // namespace hearth
