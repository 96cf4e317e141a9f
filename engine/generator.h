// Prompt in, tokens out: prefill, then decode one token at a time with a sampler, streaming
// UTF-8-complete text to a callback and measuring every step.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "engine/backend.h"
#include "engine/generation_stats.h"
#include "engine/kv_cache.h"
#include "engine/sampler.h"
#include "engine/tokenizer.h"

namespace hearth {

struct GenerationRequest {
    std::vector<int32_t> prompt;
    int max_tokens = 128;
    SamplerSettings sampler;
};

// Receives each generated token and the text it completes (possibly empty while a UTF-8
// character is still open). Returning false cancels the generation.
using TokenCallback = std::function<bool(int32_t token, std::string_view text)>;

class Generator final {
public:
    // `context_length` 0 means the model's trained context length.
    Generator(Backend& backend, const Tokenizer& tokenizer, int context_length);

    // Throws ContextFullError before doing anything if the prompt does not fit the context.
    GenerationStats generate(const GenerationRequest& request, const TokenCallback& on_token);

    int context_length() const { return m_sequence->capacity(); }

private:
    Backend& m_backend;
    const Tokenizer& m_tokenizer;
    std::unique_ptr<Sequence> m_sequence;
};

}  // namespace hearth
