#include "engine/tokenizer.h"

#include "engine/load_error.h"
#include "engine/tokenizer_spm.h"

namespace hearth {

bool Tokenizer::is_end_of_generation(int32_t id) const {
    return id >= 0 && (id == m_vocabulary.eos || id == m_vocabulary.eot);
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool special) const {
    std::string text;
    for (const int32_t id : ids) text += token_to_piece(id, special);
    return text;
}

std::unique_ptr<Tokenizer> make_tokenizer(const GgufFile& file) {
    Vocabulary vocabulary = Vocabulary::from_gguf(file);
    if (vocabulary.model == "llama") return std::make_unique<SpmTokenizer>(std::move(vocabulary));
    if (vocabulary.model == "gpt2") {
        throw LoadError(file.path().string() +
                        ": byte-level BPE tokenizers ('gpt2', pre-tokenizer '" +
                        vocabulary.pre_tokenizer + "') are not supported yet");
    }
    throw LoadError(file.path().string() + ": unknown tokenizer model '" + vocabulary.model + "'");
}

}  // namespace hearth
