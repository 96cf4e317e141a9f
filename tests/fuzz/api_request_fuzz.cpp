// hearth-server's request bodies (app/server/api_request.*) on arbitrary bytes: both endpoints'
// parsers may refuse only with ApiError (a 400 naming the field), whatever the JSON, the UTF-8,
// the types or the sizes.
#include <cstdint>
#include <string_view>

#include "app/server/api_error.h"
#include "app/server/api_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view body(reinterpret_cast<const char*>(data), size);
    const hearth::server::RequestLimits limits{.context_length = 256};
    try {
        hearth::server::parse_chat_completion(body, limits);
    } catch (const hearth::server::ApiError&) {
    }
    try {
        hearth::server::parse_text_completion(body, limits);
    } catch (const hearth::server::ApiError&) {
    }
    return 0;
}
