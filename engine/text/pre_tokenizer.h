// Splits text into the pieces a byte-level BPE vocabulary was trained on, as its
// tokenizer.ggml.pre names (each pattern splits every piece the previous one produced).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text/unicode_regex.h"

namespace hearth {

class PreTokenizer final {
public:
    // Throws LoadError-style std::invalid_argument for a pre-tokenizer Hearth does not know.
    explicit PreTokenizer(const std::string& name);

    std::vector<std::string> split(std::string_view text) const;
    const std::string& name() const { return m_name; }

private:
    std::string m_name;
    std::vector<UnicodeRegex> m_patterns;
};

}  // namespace hearth
