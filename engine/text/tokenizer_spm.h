// SentencePiece vocabularies (tokenizer.ggml.model = "llama"), encoded by the sentencepiece
// library from a model description built out of the GGUF token table.
#pragma once

#include <memory>

#include "engine/text/tokenizer.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace hearth {

class SpmTokenizer final : public Tokenizer {
public:
    explicit SpmTokenizer(Vocabulary vocabulary);
    ~SpmTokenizer() override;

    std::vector<int32_t> encode(std::string_view text, EncodeOptions options) const override;

private:
    std::string text_piece(int32_t id) const override;
    void encode_fragment(std::string_view text, bool space_prefix, std::vector<int32_t>& out) const;

    std::unique_ptr<sentencepiece::SentencePieceProcessor> m_processor;
};

}  // namespace hearth
