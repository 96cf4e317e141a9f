#include "engine/model/cpu_load_options.h"

#include "engine/model/strip_layout.h"
#include "kernels/dot_variants.h"
#include "kernels/strips.h"

namespace hearth {

std::shared_ptr<const ByteRewrite> strip_rewrite(kernels::Isa isa) {
    // Every type with a strip layout has a kernel wherever one of them has.
    return kernels::strip_rows(kernels::kQ4_0, isa) != nullptr ? strip_layout() : nullptr;
}

MapOptions cpu_load_options(MapOptions options, kernels::Isa isa) {
    options.rewrite = strip_rewrite(isa);
    return options;
}

}  // namespace hearth
