#include "engine/text/vocabulary.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "engine/model/load_error.h"

namespace hearth {
namespace {

[[noreturn]] void fail(const GgufFile& file, const std::string& message) {
    throw LoadError(file.path().string() + ": " + message);
}

// A special-token id key; ids outside the vocabulary are ignored with a warning, as some
// converters write 0xFFFFFFFF for "none".
int32_t special_id(const GgufFile& file, const std::string& key, int32_t size) {
    const auto value = file.get_integer(key);
    if (!value) return -1;
    if (*value < 0 || *value >= size) {
        spdlog::debug("{}: ignoring {} = {}, which is not a token id", file.path().string(), key,
                      *value);
        return -1;
    }
    return static_cast<int32_t>(*value);
}

// The end-of-turn markers chat formats print, found by their text as llama.cpp finds them.
// A marker the file types as user-defined (Phi-3's "</s>") becomes a control token, as
// llama.cpp makes it: user-defined tokens are matched in any text, so a user who typed "</s>"
// would otherwise end their own turn; control tokens are matched only where special-token
// parsing is on, and print only when asked to.
void add_end_markers(Vocabulary& vocab) {
    static const char* const kEndMarkers[] = {
        "<|eot_id|>",      "<|eom_id|>",    "<|im_end|>",
        "<|end|>",         "<end_of_turn>", "<|endoftext|>",
        "<|end_of_text|>", "</s>",          "<｜end▁of▁sentence｜>",
        "<|return|>",      "<|call|>"};
    auto& ends = vocab.end_of_generation;
    for (int32_t id = 0; id < vocab.size(); ++id) {
        auto& kind = vocab.kinds[id];
        if (kind != TokenKind::Control && kind != TokenKind::UserDefined) continue;
        const auto is_marker = [&](const char* marker) { return vocab.tokens[id] == marker; };
        if (std::none_of(std::begin(kEndMarkers), std::end(kEndMarkers), is_marker)) continue;
        kind = TokenKind::Control;
        if (std::find(ends.begin(), ends.end(), id) == ends.end()) ends.push_back(id);
    }
    // gpt-oss ends a message with <|end|> and goes on (the reasoning on the analysis channel,
    // then the answer on the final one); its turn ends with <|return|> or <|call|>. As in
    // llama.cpp, a vocabulary with both of those does not stop at <|end|>.
    const int32_t end = vocab.id_of("<|end|>");
    if (end >= 0 && vocab.id_of("<|return|>") >= 0 && vocab.id_of("<|call|>") >= 0)
        ends.erase(std::remove(ends.begin(), ends.end(), end), ends.end());
}

}  // namespace

Vocabulary Vocabulary::from_gguf(const GgufFile& file) {
    Vocabulary vocab;
    const auto model = file.get_string("tokenizer.ggml.model");
    if (!model) fail(file, "the file has no tokenizer (metadata key 'tokenizer.ggml.model')");
    vocab.model = *model;
    vocab.pre_tokenizer = file.get_string("tokenizer.ggml.pre").value_or("default");

    const auto* tokens = file.get_array("tokenizer.ggml.tokens");
    if (tokens == nullptr || tokens->empty()) fail(file, "the vocabulary has no tokens");
    if (tokens->size() > (1u << 22)) fail(file, "the vocabulary is implausibly large");
    if (tokens->element_type() != GgufValueType::String)
        fail(file, "tokenizer.ggml.tokens must hold strings");
    vocab.tokens = tokens->strings();
    const size_t count = vocab.tokens.size();

    if (const auto* scores = file.get_array("tokenizer.ggml.scores")) {
        if (scores->size() != count) fail(file, "tokenizer.ggml.scores has the wrong length");
        vocab.scores.reserve(count);
        for (size_t id = 0; id < count; ++id) {
            const auto number = scores->number_at(id);
            if (!number) fail(file, "tokenizer.ggml.scores must hold numbers");
            vocab.scores.push_back(static_cast<float>(*number));
        }
    } else {
        vocab.scores.assign(count, 0.0f);
    }

    if (const auto* kinds = file.get_array("tokenizer.ggml.token_type")) {
        if (kinds->size() != count) fail(file, "tokenizer.ggml.token_type has the wrong length");
        vocab.kinds.reserve(count);
        for (size_t id = 0; id < count; ++id) {
            const auto kind = kinds->integer_at(id);
            if (!kind || *kind < 0 || *kind > static_cast<int64_t>(TokenKind::Byte)) {
                fail(file, "tokenizer.ggml.token_type holds an unknown token type");
            }
            vocab.kinds.push_back(static_cast<TokenKind>(*kind));
        }
    } else {
        vocab.kinds.assign(count, TokenKind::Normal);
    }

    if (const auto* merges = file.get_array("tokenizer.ggml.merges")) {
        if (!merges->empty() && merges->element_type() != GgufValueType::String)
            fail(file, "tokenizer.ggml.merges must hold strings");
        vocab.merges.reserve(merges->size());
        for (size_t i = 0; i < merges->size(); ++i) vocab.merges.emplace_back(merges->string_at(i));
    }

    const auto size = static_cast<int32_t>(count);
    vocab.bos = special_id(file, "tokenizer.ggml.bos_token_id", size);
    vocab.eos = special_id(file, "tokenizer.ggml.eos_token_id", size);
    vocab.eot = special_id(file, "tokenizer.ggml.eot_token_id", size);
    vocab.unknown = special_id(file, "tokenizer.ggml.unknown_token_id", size);
    vocab.padding = special_id(file, "tokenizer.ggml.padding_token_id", size);
    for (const int32_t id :
         {vocab.eos, vocab.eot, special_id(file, "tokenizer.ggml.eom_token_id", size)}) {
        if (id >= 0) vocab.end_of_generation.push_back(id);
    }
    add_end_markers(vocab);
    const bool spm = vocab.model == "llama";
    vocab.add_bos = file.get_bool("tokenizer.ggml.add_bos_token").value_or(spm) && vocab.bos >= 0;
    vocab.add_eos = file.get_bool("tokenizer.ggml.add_eos_token").value_or(false) && vocab.eos >= 0;
    vocab.add_space_prefix = file.get_bool("tokenizer.ggml.add_space_prefix").value_or(spm);
    return vocab;
}

int32_t Vocabulary::id_of(std::string_view text) const {
    for (int32_t id = 0; id < size(); ++id) {
        if (tokens[static_cast<size_t>(id)] == text) return id;
    }
    return -1;
}

}  // namespace hearth
