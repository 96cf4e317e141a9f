// Encoding arbitrary bytes (invalid UTF-8 included) with every shared vocabulary: SentencePiece
// and byte-level BPE under each pre-tokenizer the shared files name. The first byte picks the
// vocabulary, the second the options; every id that comes back must be in the vocabulary, and
// decoding them must not fail either.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hearth::fuzz::silence_logs();
    hearth::fuzz::shared_tokenizers();  // loaded before the first input, not timed against it
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto& tokenizers = hearth::fuzz::shared_tokenizers();
    hearth::fuzz::FuzzInput input(data, size);
    const auto& chosen = tokenizers[input.byte() % tokenizers.size()];
    const uint8_t flags = input.byte();
    const std::string_view text = input.rest();
    // A chat template's copy of the user's words: special-token text there stays plain.
    const std::pair<size_t, size_t> plain_range{text.size() / 4, text.size() / 2};
    const hearth::EncodeOptions options{
        .add_special = (flags & 1) != 0,
        .parse_special = (flags & 2) != 0,
        .plain_ranges = (flags & 4) != 0 ? std::span(&plain_range, 1)
                                         : std::span<const std::pair<size_t, size_t>>{},
    };
    const auto ids = chosen.tokenizer->encode(text, options);
    for (const int32_t id : ids) {
        if (!chosen.tokenizer->vocabulary().valid(id)) {
            std::fprintf(stderr, "%s: encode returned id %d outside the vocabulary\n",
                         chosen.name.c_str(), id);
            std::abort();
        }
    }
    chosen.tokenizer->decode(ids, (flags & 8) != 0);
    return 0;
}
