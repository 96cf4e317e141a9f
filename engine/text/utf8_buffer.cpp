#include "engine/text/utf8_buffer.h"

namespace hearth {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the sequence a lead byte starts, or 0 when it cannot start one.
int sequence_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return 2;
    if (lead >= 0xE0 && lead <= 0xEF) return 3;
    if (lead >= 0xF0 && lead <= 0xF4) return 4;
    return 0;
}

// Whether `byte` may follow at index `index` (1-based) of a sequence led by `lead`; the ranges
// exclude overlong forms, surrogates and code points past U+10FFFF.
bool valid_continuation(unsigned char lead, int index, unsigned char byte) {
    if (index == 1) {
        if (lead == 0xE0) return byte >= 0xA0 && byte <= 0xBF;
        if (lead == 0xED) return byte >= 0x80 && byte <= 0x9F;
        if (lead == 0xF0) return byte >= 0x90 && byte <= 0xBF;
        if (lead == 0xF4) return byte >= 0x80 && byte <= 0x8F;
    }
    return byte >= 0x80 && byte <= 0xBF;
}

enum class Scan { Complete, Incomplete, Invalid };

Scan scan(std::string_view bytes, size_t start, int& length) {
    const auto lead = static_cast<unsigned char>(bytes[start]);
    length = sequence_length(lead);
    if (length == 0) return Scan::Invalid;
    for (int i = 1; i < length; ++i) {
        if (start + i >= bytes.size()) return Scan::Incomplete;
        if (!valid_continuation(lead, i, static_cast<unsigned char>(bytes[start + i]))) {
            return Scan::Invalid;
        }
    }
    return Scan::Complete;
}

}  // namespace

std::string Utf8Buffer::push(std::string_view bytes) {
    m_pending.append(bytes);
    std::string out;
    size_t i = 0;
    while (i < m_pending.size()) {
        int length = 0;
        const Scan result = scan(m_pending, i, length);
        if (result == Scan::Incomplete) break;
        if (result == Scan::Invalid) {
            out += kReplacement;
            ++i;
            continue;
        }
        out.append(m_pending, i, static_cast<size_t>(length));
        i += static_cast<size_t>(length);
    }
    m_pending.erase(0, i);
    return out;
}

std::string Utf8Buffer::flush() {
    std::string out;
    for (size_t i = 0; i < m_pending.size(); ++i) out += kReplacement;
    m_pending.clear();
    return out;
}

bool is_valid_utf8(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        int length = 0;
        if (scan(text, i, length) != Scan::Complete) return false;
        i += static_cast<size_t>(length);
    }
    return true;
}

}  // namespace hearth
