// The strip layout of a model's 4-bit and Q3_K matrices (kernels/strips.h), made as the file is
// loaded into memory: on a CPU with a strip kernel, decode and batched decode read sixteen rows as
// one operand instead of transposing them on every read. Loading does it once, in the model's own
// copy (the same bytes, rearranged), so it costs no memory; the file on disk is untouched.
#pragma once

#include <memory>
#include <string_view>

#include "engine/format/gguf_file.h"
#include "engine/format/mapped_file.h"

namespace hearth {

inline constexpr std::string_view kStripLayout = "strips";

// Whether the strip layout repacks `tensor`: the matrices of a type with a strip layout (Q4_0,
// IQ4_NL, IQ4_XS, Q3_K) that the CPU multiplies by activations
// (attention, the dense feed-forward, the LM head) whose rows fill whole strips and whose rows
// are whole blocks. Not the embedding (looked up a row at a time) nor stacked experts (their
// kernels take rows one expert at a time).
bool repacked_into_strips(const GgufTensor& tensor);

// Whether `tensor` was loaded in strips: its file was loaded with the strip layout's rewrite
// and the layout repacks it.
bool loaded_in_strips(const GgufTensor& tensor);

// The rewrite into strips. Any CPU reads them (unpacking where it has no strip kernel).
std::shared_ptr<const ByteRewrite> strip_layout();

}  // namespace hearth
