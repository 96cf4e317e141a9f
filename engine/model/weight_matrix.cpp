#include <string>

#include "engine/model/load_error.h"
#include "engine/model/model.h"
#include "kernels/strips.h"

namespace hearth {

const std::byte* WeightMatrix::rows_at(int64_t first, int64_t count,
                                       std::vector<std::byte>& scratch) const {
    if (!strips || data == nullptr) return row(first);
    scratch.resize(static_cast<size_t>(count) * row_bytes);
    kernels::unpack_strips(static_cast<int>(type), data, static_cast<size_t>(columns),
                           static_cast<size_t>(first), static_cast<size_t>(count), scratch.data());
    return scratch.data();
}

WeightMatrix WeightMatrix::slice(int64_t first, int64_t count) const {
    constexpr auto kStripRows = static_cast<int64_t>(kernels::kStripRows);
    if (strips && (first % kStripRows != 0 || count % kStripRows != 0)) {
        throw LoadError("rows " + std::to_string(first) + " to " + std::to_string(first + count) +
                        " of a fused tensor do not start and end on a strip of " +
                        std::to_string(kStripRows) +
                        " rows; load this model without the CPU's strip layout");
    }
    // A strip of sixteen rows takes the bytes of sixteen rows, so where strip first / 16 begins
    // is where row `first` would.
    return {type, row(first), count, columns, row_bytes, strips};
}

}  // namespace hearth
