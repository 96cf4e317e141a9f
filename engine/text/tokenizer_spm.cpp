#include "engine/text/tokenizer_spm.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <cstring>

#include "engine/model/load_error.h"

namespace hearth {
namespace {

// Just enough of the protobuf wire format to describe a sentencepiece ModelProto; linking
// libprotobuf would clash with the copy inside libsentencepiece (see PLATFORM.md).
class ProtoWriter {
public:
    void varint(uint64_t value) {
        while (value >= 0x80) {
            m_bytes.push_back(static_cast<char>((value & 0x7f) | 0x80));
            value >>= 7;
        }
        m_bytes.push_back(static_cast<char>(value));
    }
    void tag(int field, int wire_type) { varint(static_cast<uint64_t>(field) << 3 | wire_type); }
    void integer(int field, int64_t value) {
        tag(field, 0);
        varint(static_cast<uint64_t>(value));
    }
    void boolean(int field, bool value) { integer(field, value ? 1 : 0); }
    void fixed32(int field, float value) {
        tag(field, 5);
        char raw[4];
        std::memcpy(raw, &value, 4);
        m_bytes.append(raw, 4);
    }
    void bytes(int field, std::string_view value) {
        tag(field, 2);
        varint(value.size());
        m_bytes.append(value);
    }
    const std::string& str() const { return m_bytes; }

private:
    std::string m_bytes;
};

std::string model_proto(const Vocabulary& vocab) {
    ProtoWriter model;
    bool has_bytes = false;
    for (int32_t id = 0; id < vocab.size(); ++id) {
        ProtoWriter piece;
        piece.bytes(1, vocab.tokens[id]);
        piece.fixed32(2, vocab.scores[id]);
        // sentencepiece's piece types use the same numbers as GGUF's, Undefined aside. It wants
        // exactly one unknown piece, the one unknown_token_id names (Phi-3 types its <unk> as
        // control and its padding as unknown); other unknown pieces become control pieces,
        // which text never produces either.
        auto kind = vocab.kinds[id] == TokenKind::Undefined ? TokenKind::Normal : vocab.kinds[id];
        if (id == vocab.unknown)
            kind = TokenKind::Unknown;
        else if (kind == TokenKind::Unknown)
            kind = TokenKind::Control;
        piece.integer(3, static_cast<int>(kind));
        has_bytes = has_bytes || kind == TokenKind::Byte;
        model.bytes(1, piece.str());
    }
    ProtoWriter trainer;
    trainer.integer(3, 2);  // model_type = BPE
    trainer.integer(4, vocab.size());
    trainer.boolean(35, has_bytes);  // byte_fallback
    trainer.integer(40, vocab.unknown);
    trainer.integer(41, vocab.bos);
    trainer.integer(42, vocab.eos);
    trainer.integer(43, vocab.padding);
    model.bytes(2, trainer.str());
    ProtoWriter normalizer;
    normalizer.bytes(1, "identity");
    // The dummy prefix is added by encode() itself, which knows where special tokens split text.
    normalizer.boolean(3, false);
    normalizer.boolean(4, false);  // remove_extra_whitespaces
    normalizer.boolean(5, true);   // escape_whitespaces
    model.bytes(3, normalizer.str());
    return model.str();
}

// Parses "<0xNN>" into its byte value, or -1.
int byte_token_value(std::string_view text) {
    if (text.size() != 6 || text.compare(0, 3, "<0x") != 0 || text[5] != '>') return -1;
    int value = 0;
    for (int i = 3; i < 5; ++i) {
        const char c = text[i];
        const int digit = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                 : -1;
        if (digit < 0) return -1;
        value = value * 16 + digit;
    }
    return value;
}

}  // namespace

SpmTokenizer::SpmTokenizer(Vocabulary vocabulary)
    : Tokenizer(std::move(vocabulary)),
      m_processor(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
    const auto& vocab = this->vocabulary();
    if (vocab.unknown < 0) throw LoadError("the SentencePiece vocabulary has no unknown token");
    const auto status = m_processor->LoadFromSerializedProto(model_proto(vocab));
    if (!status.ok()) {
        throw LoadError("the SentencePiece vocabulary could not be loaded: " + status.ToString());
    }
}

SpmTokenizer::~SpmTokenizer() = default;

void SpmTokenizer::encode_fragment(std::string_view text, bool space_prefix,
                                   std::vector<int32_t>& out) const {
    if (text.empty()) return;
    std::string input = space_prefix ? " " : "";
    input.append(text);
    std::vector<int> ids;
    const auto status = m_processor->Encode(input, &ids);
    if (!status.ok()) throw std::runtime_error("tokenization failed: " + status.ToString());
    out.insert(out.end(), ids.begin(), ids.end());
}

// Like llama.cpp: after BOS or any special token the next text fragment gets the dummy prefix.
std::vector<int32_t> SpmTokenizer::encode(std::string_view text, EncodeOptions options) const {
    const auto& vocab = vocabulary();
    std::vector<int32_t> out;
    if (options.add_special && vocab.add_bos) out.push_back(vocab.bos);
    bool after_special = true;
    for (const auto& fragment : partition(text, options)) {
        if (fragment.token >= 0) {
            out.push_back(fragment.token);
            after_special = true;
            continue;
        }
        encode_fragment(fragment.text, vocab.add_space_prefix && after_special, out);
        after_special = false;
    }
    if (options.add_special && vocab.add_eos) out.push_back(vocab.eos);
    return out;
}

std::string SpmTokenizer::text_piece(int32_t id) const {
    const std::string_view text = vocabulary().tokens[id];
    if (vocabulary().kinds[id] == TokenKind::Byte) {
        const int value = byte_token_value(text);
        return value < 0 ? std::string{} : std::string(1, static_cast<char>(value));
    }
    std::string piece;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, 3, "\xE2\x96\x81") == 0) {  // U+2581 stands for a space
            piece += ' ';
            i += 2;
        } else {
            piece += text[i];
        }
    }
    return piece;
}

}  // namespace hearth
