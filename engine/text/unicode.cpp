#include "engine/text/unicode.h"

#include <unicode/uchar.h>

#include "engine/text/utf8_buffer.h"

namespace hearth::unicode {
namespace {

int category_mask(char32_t c) {
    return U_GET_GC_MASK(static_cast<UChar32>(c));
}

}  // namespace

std::vector<char32_t> decode_utf8(std::string_view text, std::vector<size_t>* offsets) {
    std::vector<char32_t> out;
    out.reserve(text.size());
    if (offsets != nullptr) offsets->clear();
    for (size_t i = 0; i < text.size();) {
        if (offsets != nullptr) offsets->push_back(i);
        const auto lead = static_cast<unsigned char>(text[i]);
        const int length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        if (lead < 0x80) {
            out.push_back(lead);
            ++i;
            continue;
        }
        if (i + length > text.size() || !is_valid_utf8(text.substr(i, length))) {
            out.push_back(0xFFFD);
            ++i;
            continue;
        }
        char32_t c = lead & (0x7F >> length);
        for (int k = 1; k < length; ++k)
            c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
        out.push_back(c);
        i += static_cast<size_t>(length);
    }
    if (offsets != nullptr) offsets->push_back(text.size());
    return out;
}

void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

std::string encode_utf8(const std::vector<char32_t>& code_points, size_t begin, size_t end) {
    std::string out;
    for (size_t i = begin; i < end; ++i) append_utf8(out, code_points[i]);
    return out;
}

bool is_letter(char32_t c) {
    return (category_mask(c) & U_GC_L_MASK) != 0;
}
bool is_number(char32_t c) {
    return (category_mask(c) & U_GC_N_MASK) != 0;
}
bool is_punctuation(char32_t c) {
    return (category_mask(c) & U_GC_P_MASK) != 0;
}
bool is_symbol(char32_t c) {
    return (category_mask(c) & U_GC_S_MASK) != 0;
}
bool is_mark(char32_t c) {
    return (category_mask(c) & U_GC_M_MASK) != 0;
}
bool is_whitespace(char32_t c) {
    return u_isUWhiteSpace(static_cast<UChar32>(c)) != 0;
}

}  // namespace hearth::unicode
