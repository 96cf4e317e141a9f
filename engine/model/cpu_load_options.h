// How a load for the CPU backend lays out the model's bytes: in the strip layout where the CPU has
// strip kernels, as the file has them elsewhere. Apart from the layout itself because it
// asks the kernels which CPU level runs, which the loader's parsing code does not need to know.
#pragma once

#include <memory>

#include "engine/format/mapped_file.h"
#include "kernels/dot.h"

namespace hearth {

// The rewrite into strips for a CPU working at `isa`: null where it has no strip kernel, and the
// model then keeps the file's layout.
std::shared_ptr<const ByteRewrite> strip_rewrite(kernels::Isa isa);

// The options a load for the CPU backend at `isa` uses: in strips where that level has strip
// kernels. The CPU backend reads any layout; this one is fastest for it.
MapOptions cpu_load_options(MapOptions options = {}, kernels::Isa isa = kernels::best_isa());

}  // namespace hearth
