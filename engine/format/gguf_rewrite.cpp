#include "engine/format/gguf_rewrite.h"

#include "engine/format/gguf_writer.h"

namespace hearth {

void write_rewritten(const GgufFile& source, const std::filesystem::path& out,
                     const GgufRewrite& rewrite) {
    GgufWriter writer(static_cast<uint32_t>(source.alignment()));
    for (const auto& [key, value] : source.metadata()) {
        // The rewrite is one whole file even when the source was split.
        if (key.starts_with("split.")) continue;
        if (key == "tokenizer.ggml.tokens" && !rewrite.token_texts.empty()) {
            GgufArray tokens = *value.as_array();
            for (const auto& [id, text] : rewrite.token_texts)
                tokens.set(static_cast<size_t>(id), GgufValue(text));
            writer.set(key, GgufValue(std::move(tokens)));
        } else if (key == "tokenizer.ggml.token_type" && !rewrite.control_tokens.empty()) {
            GgufArray kinds = *value.as_array();
            // 3: a control token in GGUF's token_type (TokenKind::Control).
            for (const int32_t id : rewrite.control_tokens)
                kinds.set(static_cast<size_t>(id), GgufValue(int32_t{3}));
            writer.set(key, GgufValue(std::move(kinds)));
        } else {
            writer.set(key, value);
        }
    }
    writer.set("tokenizer.chat_template", GgufValue(rewrite.chat_template));
    for (const auto& tensor : source.tensors()) {
        writer.add_tensor(tensor.name, tensor.type, tensor.shape,
                          std::vector<std::byte>(tensor.data, tensor.data + tensor.bytes));
    }
    writer.write(out);
}

}  // namespace hearth
