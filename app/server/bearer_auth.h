// The API key check: `Authorization: Bearer KEY`, as OpenAI's clients send it.
#pragma once

#include <string_view>

namespace hearth::server {

// True when `authorization` (the header's value) is "Bearer " followed by exactly `key`. The key
// is compared in time that does not depend on where the first wrong byte is, so a client on the
// network cannot find the key one byte at a time by timing refusals.
bool bearer_matches(std::string_view authorization, std::string_view key);

}  // namespace hearth::server
