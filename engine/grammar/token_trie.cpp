#include "engine/grammar/token_trie.h"

#include <algorithm>
#include <numeric>

namespace hearth {

TokenTrie::TokenTrie(const Tokenizer& tokenizer) {
    const int vocab = tokenizer.vocabulary().size();
    m_bytes.reserve(static_cast<size_t>(vocab));
    for (int32_t id = 0; id < vocab; ++id) m_bytes.push_back(tokenizer.token_to_piece(id));

    std::vector<int32_t> order(static_cast<size_t>(vocab));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return bytes(a) < bytes(b); });
    // In sorted order each token shares a prefix with the previous one and adds new nodes
    // only as last children along its path.
    m_nodes.emplace_back();
    std::vector<int32_t> path{0};  // path[d]: the node for the first d bytes of `previous`
    std::string_view previous;
    for (const int32_t token : order) {
        const std::string_view text = bytes(token);
        if (text.empty()) continue;
        size_t shared = 0;
        while (shared < text.size() && shared < previous.size() && text[shared] == previous[shared])
            ++shared;
        path.resize(shared + 1);
        for (size_t d = shared; d < text.size(); ++d) {
            const auto id = static_cast<int32_t>(m_nodes.size());
            Node node;
            node.byte = static_cast<uint8_t>(text[d]);
            node.tokens_begin = node.tokens_end = static_cast<int32_t>(m_tokens.size());
            m_nodes.push_back(node);
            Node& parent = m_nodes[static_cast<size_t>(path.back())];
            if (parent.last_child >= 0) {
                m_nodes[static_cast<size_t>(parent.last_child)].next_sibling = id;
            } else {
                parent.first_child = id;
            }
            parent.last_child = id;
            path.push_back(id);
        }
        Node& end = m_nodes[static_cast<size_t>(path.back())];
        if (end.tokens_begin == end.tokens_end) {
            end.tokens_begin = end.tokens_end = static_cast<int32_t>(m_tokens.size());
        }
        m_tokens.push_back(token);
        end.tokens_end = static_cast<int32_t>(m_tokens.size());
        previous = text;
    }
}

}  // namespace hearth
