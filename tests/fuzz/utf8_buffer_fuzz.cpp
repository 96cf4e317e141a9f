// The streaming UTF-8 buffer on arbitrary bytes cut into arbitrary fragments: everything it
// hands on must be valid UTF-8, and a stream that was valid UTF-8 must come out unchanged.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/text/utf8_buffer.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

void check(bool holds, const char* what) {
    if (!holds) {
        std::fprintf(stderr, "Utf8Buffer: %s\n", what);
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    hearth::fuzz::FuzzInput input(data, size);
    hearth::Utf8Buffer buffer;
    std::string whole, out;
    while (input.remaining() > 0) {
        // A fragment of 0 to 7 bytes, as token pieces are (empty ones included).
        const std::string_view fragment = input.take(input.byte() % 8);
        whole += fragment;
        const std::string text = buffer.push(fragment);
        check(hearth::is_valid_utf8(text), "push returned invalid UTF-8");
        out += text;
    }
    const std::string tail = buffer.flush();
    check(hearth::is_valid_utf8(tail), "flush returned invalid UTF-8");
    check(buffer.empty(), "flush left bytes pending");
    out += tail;
    if (hearth::is_valid_utf8(whole)) check(out == whole, "valid UTF-8 came out changed");
    return 0;
}
