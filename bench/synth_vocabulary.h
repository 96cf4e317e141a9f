// The tokenizer a synthetic model carries. llama.cpp loads no model without one and wants
// exactly as many tokens as the embedding has rows; Hearth's tokenizers must accept it too,
// so the same file serves both programs' text paths.
#pragma once

#include <filesystem>

#include "engine/format/gguf_writer.h"

namespace hearth::bench {

// Copies every tokenizer.* key of `source` (a vocabulary-only GGUF file such as
// ggml-vocab-qwen2.gguf). A shorter token list is padded to `size` with unused "[PAD{i}]"
// tokens, as Hugging Face conversion pads a vocabulary to the embedding's rows; a longer one
// is an error.
void copy_vocabulary(const std::filesystem::path& source, int size, GgufWriter& writer);

// A generated SentencePiece vocabulary of exactly `size` pieces laid out as Gemma's is: <pad> 0,
// <eos> 1, <bos> 2, <unk> 3, the turn markers, the 256 byte pieces, then text pieces.
void write_synthetic_spm_vocabulary(int size, GgufWriter& writer);

}  // namespace hearth::bench
