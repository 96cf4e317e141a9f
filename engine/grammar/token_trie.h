// Every token's bytes, computed once per vocabulary and arranged as a trie, so a byte-level
// grammar can find all tokens it accepts by walking shared prefixes once and abandoning a
// subtree at its first refused byte (inside a JSON structure most first bytes are refused).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text/tokenizer.h"

namespace hearth {

class TokenTrie final {
public:
    // Control and other special tokens have no text and are left out.
    explicit TokenTrie(const Tokenizer& tokenizer);

    int vocab_size() const { return static_cast<int>(m_bytes.size()); }
    std::string_view bytes(int32_t token) const { return m_bytes[static_cast<size_t>(token)]; }

    // Calls visit(token, state) for every token whose bytes `advance(state, byte)` accepts one
    // after the other, with the state after the token's last byte.
    template <typename State, typename Advance, typename Visit>
    void walk(const State& start, const Advance& advance, const Visit& visit) const {
        walk_children(0, start, advance, visit);
    }

private:
    struct Node {
        uint8_t byte = 0;
        int32_t first_child = -1;
        int32_t last_child = -1;
        int32_t next_sibling = -1;
        int32_t tokens_begin = 0;  // into m_tokens: the tokens whose bytes end here
        int32_t tokens_end = 0;
    };

    template <typename State, typename Advance, typename Visit>
    void walk_children(int32_t node, const State& state, const Advance& advance,
                       const Visit& visit) const {
        for (int32_t child = m_nodes[static_cast<size_t>(node)].first_child; child >= 0;
             child = m_nodes[static_cast<size_t>(child)].next_sibling) {
            const Node& next = m_nodes[static_cast<size_t>(child)];
            State after = state;
            if (!advance(after, next.byte)) continue;
            for (int32_t i = next.tokens_begin; i < next.tokens_end; ++i) {
                visit(m_tokens[static_cast<size_t>(i)], after);
            }
            walk_children(child, after, advance, visit);
        }
    }

    std::vector<std::string> m_bytes;  // per token id
    std::vector<Node> m_nodes;         // m_nodes[0] is the root
    std::vector<int32_t> m_tokens;     // token ids, sorted by their bytes
};

}  // namespace hearth
