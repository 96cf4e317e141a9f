// A conversation as fuzz bytes and back: the jinja_messages_fuzz target reads messages this
// way, and seed_corpus writes the fixtures' conversations in it. One record per message,
// separated by 0x1e; a record is a kind byte (role, content as a list of parts, arguments as
// text) then up to four fields separated by 0x1f: content, reasoning, a tool's name, its
// arguments. Every byte string decodes to some conversation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/text/chat_message.h"

namespace hearth::fuzz {

inline constexpr char kRecordSeparator = '\x1e';
inline constexpr char kFieldSeparator = '\x1f';

std::vector<ChatMessage> decode_messages(std::string_view bytes);
std::string encode_messages(const std::vector<ChatMessage>& messages);

}  // namespace hearth::fuzz
