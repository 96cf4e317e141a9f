// A remote server's reply as the remote-engine client reads it (engine/remote/): arbitrary bytes
// through the SSE reader, in pieces the first byte chooses, each event through the chunk parser;
// the same bytes as a whole answer and as a model list. Only RemoteError (a named failure) and
// the reader's std::length_error may come out; the events must not depend on how TCP split the
// bytes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/remote/completion_events.h"
#include "engine/remote/remote_error.h"
#include "engine/remote/sse_reader.h"

namespace {

using hearth::remote::SseEvent;
using hearth::remote::SseReader;

std::vector<SseEvent> read(std::string_view bytes, size_t piece) {
    SseReader reader;
    std::vector<SseEvent> events;
    for (size_t start = 0; start < bytes.size(); start += piece) {
        for (SseEvent& event : reader.feed(bytes.substr(start, piece))) {
            events.push_back(std::move(event));
        }
    }
    return events;
}

void check_same(const std::vector<SseEvent>& whole, const std::vector<SseEvent>& split) {
    bool same = whole.size() == split.size();
    for (size_t i = 0; same && i < whole.size(); ++i) {
        same = whole[i].data == split[i].data && whole[i].type == split[i].type;
    }
    if (!same) {
        std::fprintf(stderr, "sse: %zu events whole, %zu split, or different ones\n", whole.size(),
                     split.size());
        std::abort();
    }
}

template <typename Parse>
void parse_quietly(Parse parse) {
    try {
        parse();
    } catch (const hearth::remote::RemoteError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const size_t piece = 1 + data[0] % 16;
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::vector<SseEvent> whole;
    try {
        whole = read(bytes, bytes.size() + 1);
        check_same(whole, read(bytes, piece));
    } catch (const std::length_error&) {
        return 0;
    }
    for (const SseEvent& event : whole) {
        parse_quietly([&] { hearth::remote::parse_chunk(event.data); });
    }
    parse_quietly([&] { hearth::remote::parse_completion(bytes); });
    parse_quietly([&] { hearth::remote::parse_model_list(bytes); });
    hearth::remote::error_message(bytes);
    return 0;
}
