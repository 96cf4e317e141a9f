#include "engine/text/tokenizer.h"

#include <algorithm>

#include "engine/model/load_error.h"
#include "engine/text/tokenizer_bpe.h"
#include "engine/text/tokenizer_spm.h"

namespace hearth {

Tokenizer::Tokenizer(Vocabulary vocabulary) : m_vocabulary(std::move(vocabulary)) {
    for (int32_t id = 0; id < m_vocabulary.size(); ++id) {
        const auto kind = m_vocabulary.kinds[id];
        if ((kind == TokenKind::Control || kind == TokenKind::UserDefined) &&
            !m_vocabulary.tokens[id].empty()) {
            m_special_tokens.push_back(id);
        }
    }
    std::stable_sort(m_special_tokens.begin(), m_special_tokens.end(), [&](int32_t a, int32_t b) {
        return m_vocabulary.tokens[a].size() > m_vocabulary.tokens[b].size();
    });
}

std::vector<Tokenizer::Fragment> Tokenizer::partition(std::string_view text,
                                                      const EncodeOptions& options) const {
    const auto is_plain = [&](size_t begin, size_t end) {
        for (const auto& [first, last] : options.plain_ranges) {
            if (begin < last && end > first) return true;
        }
        return false;
    };
    std::vector<Fragment> fragments{{text, -1}};
    for (const int32_t id : m_special_tokens) {
        if (!options.parse_special && m_vocabulary.kinds[id] == TokenKind::Control) continue;
        const std::string_view special = m_vocabulary.tokens[id];
        std::vector<Fragment> next;
        for (const auto& fragment : fragments) {
            if (fragment.token >= 0 || fragment.text.find(special) == std::string_view::npos) {
                next.push_back(fragment);
                continue;
            }
            const size_t base = static_cast<size_t>(fragment.text.data() - text.data());
            size_t start = 0;
            for (size_t found = fragment.text.find(special); found != std::string_view::npos;
                 found = fragment.text.find(special, found + 1)) {
                if (found < start || is_plain(base + found, base + found + special.size()))
                    continue;
                if (found > start) next.push_back({fragment.text.substr(start, found - start), -1});
                next.push_back({fragment.text.substr(found, special.size()), id});
                start = found + special.size();
            }
            if (start < fragment.text.size()) next.push_back({fragment.text.substr(start), -1});
        }
        fragments = std::move(next);
    }
    return fragments;
}

bool Tokenizer::is_end_of_generation(int32_t id) const {
    const auto& ends = m_vocabulary.end_of_generation;
    return std::find(ends.begin(), ends.end(), id) != ends.end();
}

std::string Tokenizer::token_to_piece(int32_t id, bool special) const {
    if (!m_vocabulary.valid(id)) return {};
    switch (m_vocabulary.kinds[id]) {
        case TokenKind::UserDefined:
            return std::string(m_vocabulary.tokens[id]);
        case TokenKind::Control:
        case TokenKind::Unknown:
            return special ? std::string(m_vocabulary.tokens[id]) : std::string{};
        case TokenKind::Unused:
            return {};
        case TokenKind::Normal:
        case TokenKind::Undefined:
        case TokenKind::Byte:
            return text_piece(id);
    }
    return {};
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool special) const {
    std::string text;
    for (const int32_t id : ids) text += token_to_piece(id, special);
    return text;
}

std::unique_ptr<Tokenizer> make_tokenizer(const GgufFile& file) {
    Vocabulary vocabulary = Vocabulary::from_gguf(file);
    // The tokenizers' own errors do not know the file; every load error names it.
    if (vocabulary.model == "llama") {
        try {
            return std::make_unique<SpmTokenizer>(std::move(vocabulary));
        } catch (const LoadError& error) {
            throw LoadError(file.path().string() + ": " + error.what());
        }
    }
    if (vocabulary.model == "gpt2") {
        try {
            return std::make_unique<BpeTokenizer>(std::move(vocabulary));
        } catch (const std::invalid_argument& error) {
            throw LoadError(file.path().string() + ": " + error.what());
        }
    }
    throw LoadError(file.path().string() + ": unknown tokenizer model '" + vocabulary.model + "'");
}

}  // namespace hearth
