// Which rows of logits a forward pass returns: every backend and the reference pass share it.
#pragma once

namespace hearth {

enum class LogitRows {
    None,  // no logits: a prefill step that is not the last
    Last,  // only the last token's logits: the LM head runs once
    All,   // every token's logits, for speculative verification, debugging and tests
};

}  // namespace hearth
