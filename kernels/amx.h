// Whether this process may run AMX's int8 tile products: the CPU has AMX-TILE and AMX-INT8
// (CPUID), and Linux granted the tile data state, which it hands out only on request
// (arch_prctl ARCH_REQ_XCOMP_PERM) because it makes every signal frame and context switch of
// the process 8 KiB larger. Asked once, the first time.
#pragma once

namespace hearth::kernels {

bool amx_int8_usable();

}  // namespace hearth::kernels
