// Decoding arbitrary id sequences (negative and out-of-range ids included) with every shared
// vocabulary, streamed through the UTF-8 buffer as the decode loop streams an answer: whatever
// the ids, what reaches the screen must be valid UTF-8.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/text/utf8_buffer.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// Mostly ids inside the vocabulary, so pieces are exercised, with raw words for the rest.
int32_t next_id(hearth::fuzz::FuzzInput& input, int32_t vocabulary_size) {
    const uint32_t word = input.word();
    if ((word >> 31) != 0) return static_cast<int32_t>(word << 1);  // any value, sign included
    return static_cast<int32_t>(word % static_cast<uint32_t>(vocabulary_size + 2)) - 1;
}

void check_valid(const std::string& text, const std::string& vocabulary) {
    if (!hearth::is_valid_utf8(text)) {
        std::fprintf(stderr, "%s: the UTF-8 buffer let invalid UTF-8 through\n",
                     vocabulary.c_str());
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hearth::fuzz::silence_logs();
    hearth::fuzz::shared_tokenizers();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto& tokenizers = hearth::fuzz::shared_tokenizers();
    hearth::fuzz::FuzzInput input(data, size);
    const auto& chosen = tokenizers[input.byte() % tokenizers.size()];
    const bool special = (input.byte() & 1) != 0;
    const hearth::Tokenizer& tokenizer = *chosen.tokenizer;
    std::vector<int32_t> ids;
    while (input.remaining() > 0) ids.push_back(next_id(input, tokenizer.vocabulary().size()));

    hearth::Utf8Buffer stream;
    for (const int32_t id : ids) {
        check_valid(stream.push(tokenizer.token_to_piece(id, special)), chosen.name);
        tokenizer.is_end_of_generation(id);
    }
    check_valid(stream.flush(), chosen.name);
    tokenizer.decode(ids, special);
    return 0;
}
