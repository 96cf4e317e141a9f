#include "engine/text/control_text_shield.h"

#include <algorithm>

namespace hearth {
namespace {

// U+FDD0 and U+FDD1: noncharacters, reserved for a program's internal use, so no model text
// means anything by them. A marker is U+FDD0, the original's number in decimal, U+FDD1.
constexpr std::string_view kOpen = "\xEF\xB7\x90";
constexpr std::string_view kClose = "\xEF\xB7\x91";

}  // namespace

ControlTextShield::ControlTextShield(const Vocabulary& vocabulary)
    : m_vocabulary(vocabulary), m_by_first_byte(256) {
    for (int32_t id = 0; id < vocabulary.size(); ++id) {
        const std::string_view text = vocabulary.tokens[id];
        if (vocabulary.kinds[id] != TokenKind::Control || text.empty()) continue;
        m_by_first_byte[static_cast<unsigned char>(text[0])].push_back(id);
    }
    for (auto& bucket : m_by_first_byte) {
        std::stable_sort(bucket.begin(), bucket.end(), [&](int32_t a, int32_t b) {
            return vocabulary.tokens[a].size() > vocabulary.tokens[b].size();
        });
    }
}

size_t ControlTextShield::match_at(std::string_view text, size_t at) const {
    const std::string_view rest = text.substr(at);
    // Marker characters already in the data are shielded too, so restore() never mistakes the
    // data's own bytes for a marker.
    if (rest.starts_with(kOpen) || rest.starts_with(kClose)) return kOpen.size();
    for (const int32_t id : m_by_first_byte[static_cast<unsigned char>(text[at])]) {
        if (rest.starts_with(m_vocabulary.tokens[id])) return m_vocabulary.tokens[id].size();
    }
    return 0;
}

std::string ControlTextShield::shield_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t at = 0; at < text.size();) {
        const size_t length = match_at(text, at);
        if (length == 0) {
            out += text[at++];
            continue;
        }
        out += kOpen;
        out += std::to_string(m_originals.size());
        out += kClose;
        m_originals.emplace_back(text.substr(at, length));
        at += length;
    }
    return out;
}

jinja::Value ControlTextShield::shield_value(const jinja::Value& value) {
    if (value.is_string()) return jinja::Value(shield_text(value.as_string()));
    if (value.is_array()) {
        jinja::Array items;
        for (const auto& item : value.as_array()) items.push_back(shield_value(item));
        return jinja::Value(std::move(items));
    }
    if (value.is_object()) return jinja::Value(shield_object(value.as_object()));
    return value;
}

jinja::Object ControlTextShield::shield_object(const jinja::Object& object) {
    jinja::Object out;
    for (const auto& [key, item] : object.entries()) out.set(key, shield_value(item));
    return out;
}

ControlTextShield::Restored ControlTextShield::restore(std::string_view rendered) const {
    Restored out;
    out.text.reserve(rendered.size());
    for (size_t at = 0; at < rendered.size();) {
        if (rendered.substr(at).starts_with(kOpen)) {
            size_t digits_end = at + kOpen.size();
            size_t number = 0;
            while (digits_end < rendered.size() && rendered[digits_end] >= '0' &&
                   rendered[digits_end] <= '9' && number < m_originals.size()) {
                number = number * 10 + static_cast<size_t>(rendered[digits_end++] - '0');
            }
            const bool whole = digits_end > at + kOpen.size() && number < m_originals.size() &&
                               rendered.substr(digits_end).starts_with(kClose);
            if (whole) {
                const std::string& original = m_originals[number];
                out.plain_ranges.emplace_back(out.text.size(), out.text.size() + original.size());
                out.text += original;
                at = digits_end + kClose.size();
                continue;
            }
        }
        out.text += rendered[at++];
    }
    return out;
}

}  // namespace hearth
