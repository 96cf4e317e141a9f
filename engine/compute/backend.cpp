#include "engine/compute/backend.h"

#include <stdexcept>

#include "engine/compute/kv_cache.h"

namespace hearth {

void Backend::check_distinct(std::span<const BatchRow> rows) {
    for (size_t i = 0; i < rows.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
            if (rows[i].sequence == rows[j].sequence)
                throw std::invalid_argument("a batch holds the same sequence twice");
        }
    }
}

std::vector<std::vector<float>> Backend::forward_batch(std::span<const BatchRow> rows) {
    check_distinct(rows);
    for (const auto& row : rows) {
        check_room(row.sequence->size(), row.sequence->capacity(),
                   static_cast<int>(row.tokens.size()));
    }
    std::vector<std::vector<float>> logits;
    logits.reserve(rows.size());
    for (const auto& row : rows) logits.push_back(forward(row.tokens, *row.sequence, row.rows));
    return logits;
}

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
