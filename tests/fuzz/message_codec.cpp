#include "tests/fuzz/message_codec.h"

#include <array>

namespace hearth::fuzz {
namespace {

// Unusual roles included: templates must refuse them with their own error, not crash.
constexpr std::array<std::string_view, 8> kRoles{"system",    "user", "assistant", "tool",
                                                 "developer", "user", "assistant", "ipython"};
constexpr unsigned kRoleMask = 0x07;
constexpr unsigned kContentParts = 0x08;
constexpr unsigned kArgumentsAsText = 0x10;

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    for (size_t at = text.find(separator); at != std::string_view::npos;
         at = text.find(separator)) {
        parts.push_back(text.substr(0, at));
        text.remove_prefix(at + 1);
    }
    parts.push_back(text);
    return parts;
}

ChatMessage decode_message(std::string_view record) {
    const unsigned kind = record.empty() ? 0 : static_cast<unsigned char>(record.front());
    if (!record.empty()) record.remove_prefix(1);
    auto fields = split(record, kFieldSeparator);
    fields.resize(4);
    ChatMessage message;
    message.role = std::string(kRoles[kind & kRoleMask]);
    message.content = std::string(fields[0]);
    if (kind & kContentParts) message.content_parts = std::vector<std::string>{message.content};
    message.reasoning = std::string(fields[1]);
    if (fields[2].empty()) return message;
    if (message.role == "tool") {
        message.name = std::string(fields[2]);
        message.tool_call_id = "call_1";
    } else {
        message.tool_calls.push_back({"call_1", std::string(fields[2]), std::string(fields[3]),
                                      (kind & kArgumentsAsText) != 0});
    }
    return message;
}

unsigned role_index(const std::string& role) {
    for (unsigned i = 0; i < kRoles.size(); ++i) {
        if (kRoles[i] == role) return i;
    }
    return 1;
}

}  // namespace

std::vector<ChatMessage> decode_messages(std::string_view bytes) {
    std::vector<ChatMessage> messages;
    if (bytes.empty()) return messages;
    for (const std::string_view record : split(bytes, kRecordSeparator)) {
        messages.push_back(decode_message(record));
    }
    return messages;
}

std::string encode_messages(const std::vector<ChatMessage>& messages) {
    std::string bytes;
    for (const ChatMessage& message : messages) {
        if (!bytes.empty()) bytes += kRecordSeparator;
        unsigned kind = role_index(message.role);
        if (message.content_parts) kind |= kContentParts;
        const ToolCall* call = message.tool_calls.empty() ? nullptr : &message.tool_calls.front();
        if (call != nullptr && call->arguments_as_text) kind |= kArgumentsAsText;
        bytes += static_cast<char>(kind);
        bytes += message.content;
        bytes += kFieldSeparator;
        bytes += message.reasoning;
        if (call != nullptr) {
            bytes += kFieldSeparator + call->name + kFieldSeparator + call->arguments;
        } else if (!message.name.empty()) {
            bytes += kFieldSeparator + message.name;
        }
    }
    return bytes;
}

}  // namespace hearth::fuzz
