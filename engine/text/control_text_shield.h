// Keeps control-token text that arrives inside data (what a user typed, a tool's result,
// reasoning, tool definitions) from becoming a control token when the rendered prompt is
// tokenized with special tokens parsed: a user who types "<|im_end|>" cannot end their own turn.
//
// Before rendering, each such text in the data is replaced by a marker made of Unicode
// noncharacters and digits, which templates copy, trim, split and JSON-encode like any word.
// After rendering, restore() puts the original text back and reports where it stands, so the
// tokenizer keeps exactly those bytes plain, however the template rearranged the data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/text/jinja/value.h"
#include "engine/text/vocabulary.h"

namespace hearth {

class ControlTextShield final {
public:
    explicit ControlTextShield(const Vocabulary& vocabulary);

    std::string shield_text(std::string_view text);
    jinja::Value shield_value(const jinja::Value& value);  // every string inside lists and dicts
    jinja::Object shield_object(const jinja::Object& object);

    struct Restored {
        std::string text;
        std::vector<std::pair<size_t, size_t>> plain_ranges;  // byte ranges [first, second)
    };
    Restored restore(std::string_view rendered) const;

private:
    size_t match_at(std::string_view text, size_t at) const;  // longest control text, or 0

    const Vocabulary& m_vocabulary;
    std::vector<std::vector<int32_t>> m_by_first_byte;  // control tokens, longest first
    std::vector<std::string> m_originals;               // indexed by marker number
};

}  // namespace hearth
