#include "engine/model/cpu_load_options.h"

#include "engine/model/q4_0_strip_layout.h"
#include "kernels/q4_0_strips.h"

namespace hearth {

std::shared_ptr<const ByteRewrite> q4_0_strip_rewrite(kernels::Isa isa) {
    return kernels::q4_0_strip_rows(isa) != nullptr ? q4_0_strip_layout() : nullptr;
}

MapOptions cpu_load_options(MapOptions options, kernels::Isa isa) {
    options.rewrite = q4_0_strip_rewrite(isa);
    return options;
}

}  // namespace hearth
