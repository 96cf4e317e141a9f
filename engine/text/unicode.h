// Code points, UTF-8, and the character classes tokenizer patterns ask about (through ICU).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::unicode {

// Decodes UTF-8; each byte that is not part of a valid sequence becomes U+FFFD. When `offsets`
// is given it receives the byte offset of every code point, plus the text's size at the end.
std::vector<char32_t> decode_utf8(std::string_view text, std::vector<size_t>* offsets = nullptr);
void append_utf8(std::string& out, char32_t code_point);
std::string encode_utf8(const std::vector<char32_t>& code_points, size_t begin, size_t end);

bool is_letter(char32_t c);       // \p{L}
bool is_number(char32_t c);       // \p{N}
bool is_punctuation(char32_t c);  // \p{P}
bool is_symbol(char32_t c);       // \p{S}
bool is_mark(char32_t c);         // \p{M}
bool is_whitespace(char32_t c);   // \s: the Unicode White_Space property

}  // namespace hearth::unicode
