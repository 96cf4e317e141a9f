#include "engine/text/tokenizer_bpe.h"

#include <queue>
#include <stdexcept>
#include <utility>

#include "engine/text/unicode.h"

namespace hearth {
namespace {

// GPT-2's reversible byte -> character table: printable bytes stand for themselves, the rest
// are moved to code points from U+0100 on, so every byte string becomes visible text.
bool printable(int byte) {
    return (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
}

// One character (or a merge of several) of a piece: a span of its text, linked to its
// neighbours. A symbol merged into the one on its left keeps length 0.
struct Symbol {
    size_t begin = 0;
    size_t length = 0;
    int previous = -1;
    int next = -1;
};

// A merge found possible between `left` and the symbol after it, when they had these lengths.
struct Candidate {
    int rank = 0;
    int left = 0;
    size_t left_length = 0;
    size_t right_length = 0;
};

// The best rank first, and of equal ranks the leftmost: the pair a rescan of the whole piece
// would choose (symbols grow only rightwards, so a left symbol's index orders them).
struct LaterCandidate {
    bool operator()(const Candidate& a, const Candidate& b) const {
        return a.rank != b.rank ? a.rank > b.rank : a.left > b.left;
    }
};

}  // namespace

// The piece's symbols after every merge, as spans of `text`. Candidates wait in a priority
// queue and are dropped when either side has changed since, so a piece of n characters takes
// O(n log n) steps: rescanning every pair after each merge took O(n^2), minutes for a pasted run
// of twenty thousand spaces (found by probing the tokenizer fuzz target with long inputs).
std::vector<std::pair<size_t, size_t>> BpeTokenizer::merged_symbols(const std::string& text) const {
    std::vector<size_t> offsets;
    unicode::decode_utf8(text, &offsets);
    std::vector<Symbol> symbols;
    for (size_t i = 0; i + 1 < offsets.size(); ++i) {
        const int index = static_cast<int>(i);
        symbols.push_back({offsets[i], offsets[i + 1] - offsets[i], index - 1,
                           i + 2 < offsets.size() ? index + 1 : -1});
    }
    std::priority_queue<Candidate, std::vector<Candidate>, LaterCandidate> candidates;
    const auto consider = [&](int left) {
        if (left < 0 || symbols[left].next < 0) return;
        const Symbol& a = symbols[left];
        const Symbol& b = symbols[a.next];
        const auto found = m_merge_ranks.find(text.substr(a.begin, a.length) + " " +
                                              text.substr(b.begin, b.length));
        if (found != m_merge_ranks.end()) {
            candidates.push({found->second, left, a.length, b.length});
        }
    };
    for (int i = 0; i < static_cast<int>(symbols.size()); ++i) consider(i);
    while (!candidates.empty()) {
        const Candidate best = candidates.top();
        candidates.pop();
        Symbol& left = symbols[best.left];
        if (left.length != best.left_length || left.next < 0) continue;
        Symbol& right = symbols[left.next];
        if (right.length != best.right_length) continue;
        left.length += right.length;
        right.length = 0;
        left.next = right.next;
        if (right.next >= 0) symbols[right.next].previous = best.left;
        consider(left.previous);
        consider(best.left);
    }
    std::vector<std::pair<size_t, size_t>> spans;
    for (const Symbol& symbol : symbols) {
        if (symbol.length > 0) spans.emplace_back(symbol.begin, symbol.length);
    }
    return spans;
}

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
    std::vector<std::string> symbols;
    for (const auto& [begin, length] : merged_symbols(mapped)) {
        symbols.push_back(mapped.substr(begin, length));
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
