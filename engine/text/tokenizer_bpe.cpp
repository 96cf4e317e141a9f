#include "engine/text/tokenizer_bpe.h"

#include <limits>
#include <stdexcept>

#include "engine/text/unicode.h"

namespace hearth {
namespace {

// GPT-2's reversible byte -> character table: printable bytes stand for themselves, the rest
// are moved to code points from U+0100 on, so every byte string becomes visible text.
bool printable(int byte) {
    return (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
}

}  // namespace

BpeTokenizer::BpeTokenizer(Vocabulary vocabulary)
    : Tokenizer(std::move(vocabulary)),
      m_pre_tokenizer(this->vocabulary().pre_tokenizer),
      m_ignore_merges(this->vocabulary().pre_tokenizer == "llama-bpe" ||
                      this->vocabulary().pre_tokenizer == "llama3") {
    const auto& vocab = this->vocabulary();
    char32_t next_stand_in = 256;
    for (int byte = 0; byte < 256; ++byte) {
        const char32_t stand_in = printable(byte) ? static_cast<char32_t>(byte) : next_stand_in++;
        unicode::append_utf8(m_byte_text[byte], stand_in);
        m_text_byte[stand_in] = static_cast<uint8_t>(byte);
    }
    m_token_ids.reserve(vocab.tokens.size());
    for (int32_t id = 0; id < vocab.size(); ++id) m_token_ids.emplace(vocab.tokens[id], id);
    m_merge_ranks.reserve(vocab.merges.size());
    for (size_t rank = 0; rank < vocab.merges.size(); ++rank) {
        const auto& merge = vocab.merges[rank];
        const size_t space = merge.find(' ', 1);
        if (space == std::string::npos || space + 1 >= merge.size()) {
            throw std::invalid_argument("malformed BPE merge #" + std::to_string(rank) + ": '" +
                                        merge + "'");
        }
        m_merge_ranks.emplace(merge, static_cast<int>(rank));
    }
}

std::vector<int32_t> BpeTokenizer::encode(std::string_view text, EncodeOptions options) const {
    const auto& vocab = vocabulary();
    std::vector<int32_t> out;
    if (options.add_special && vocab.add_bos) out.push_back(vocab.bos);
    for (const auto& fragment : partition(text, options)) {
        if (fragment.token >= 0) {
            out.push_back(fragment.token);
            continue;
        }
        for (const auto& piece : m_pre_tokenizer.split(fragment.text)) encode_piece(piece, out);
    }
    if (options.add_special && vocab.add_eos) out.push_back(vocab.eos);
    return out;
}

// Repeatedly merges the adjacent pair with the best (lowest) rank, leftmost first.
void BpeTokenizer::encode_piece(std::string_view piece, std::vector<int32_t>& out) const {
    std::string mapped;
    for (const char c : piece) mapped += m_byte_text[static_cast<uint8_t>(c)];
    if (m_ignore_merges) {
        if (const auto found = m_token_ids.find(mapped); found != m_token_ids.end()) {
            out.push_back(found->second);
            return;
        }
    }
    std::vector<size_t> offsets;
    unicode::decode_utf8(mapped, &offsets);
    std::vector<std::string> symbols;
    for (size_t i = 0; i + 1 < offsets.size(); ++i)
        symbols.push_back(mapped.substr(offsets[i], offsets[i + 1] - offsets[i]));
    while (symbols.size() > 1) {
        int best_rank = std::numeric_limits<int>::max();
        size_t best = 0;
        for (size_t i = 0; i + 1 < symbols.size(); ++i) {
            const auto found = m_merge_ranks.find(symbols[i] + " " + symbols[i + 1]);
            if (found != m_merge_ranks.end() && found->second < best_rank) {
                best_rank = found->second;
                best = i;
            }
        }
        if (best_rank == std::numeric_limits<int>::max()) break;
        symbols[best] += symbols[best + 1];
        symbols.erase(symbols.begin() + static_cast<long>(best) + 1);
    }
    for (const auto& symbol : symbols) {
        if (const auto found = m_token_ids.find(symbol); found != m_token_ids.end()) {
            out.push_back(found->second);
            continue;
        }
        // A symbol the vocabulary lacks falls back to one token per byte stand-in.
        std::vector<size_t> parts;
        unicode::decode_utf8(symbol, &parts);
        for (size_t i = 0; i + 1 < parts.size(); ++i) {
            const auto found = m_token_ids.find(symbol.substr(parts[i], parts[i + 1] - parts[i]));
            if (found != m_token_ids.end()) out.push_back(found->second);
        }
    }
}

std::string BpeTokenizer::text_piece(int32_t id) const {
    std::string bytes;
    for (const char32_t c : unicode::decode_utf8(vocabulary().tokens[id])) {
        const auto found = m_text_byte.find(c);
        if (found != m_text_byte.end())
            bytes += static_cast<char>(found->second);
        else
            unicode::append_utf8(bytes, c);
    }
    return bytes;
}

}  // namespace hearth
