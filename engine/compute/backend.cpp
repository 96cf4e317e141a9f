#include "engine/compute/backend.h"

namespace hearth {

int Backend::decode(Sequence& sequence, int32_t input, int count, TokenPicker& picker) {
    int accepted = 0;
    while (accepted < count) {
        const auto logits = forward(std::span(&input, 1), sequence, LogitRows::Last);
        input = picker.pick(logits);
        ++accepted;
        if (!picker.accept(input)) break;
    }
    return accepted;
}

}  // namespace hearth
