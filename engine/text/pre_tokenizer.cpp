#include "engine/text/pre_tokenizer.h"

#include <map>
#include <stdexcept>

#include "engine/text/unicode.h"

namespace hearth {
namespace {

// The patterns below are the models' own pre-tokenizer definitions (their tokenizer.json),
// as llama.cpp records them per tokenizer.ggml.pre value.
const char* const kGpt2 =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";
const char* const kLlama3 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char* const kQwen2 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char* const kCjk = "[一-龥ࠀ-一가-퟿]+";

const std::map<std::string, std::vector<std::string>>& pattern_table() {
    static const std::map<std::string, std::vector<std::string>> table{
        {"gpt-2", {kGpt2}},
        {"mpt", {kGpt2}},
        {"olmo", {kGpt2}},
        {"jais", {kGpt2}},
        {"llama-bpe", {kLlama3}},
        {"llama3", {kLlama3}},
        {"dbrx", {kLlama3}},
        {"smaug-bpe", {kLlama3}},
        {"qwen2", {kQwen2}},
        {"starcoder", {"\\p{N}", kGpt2}},
        {"refact", {"\\p{N}", kGpt2}},
        {"command-r", {"\\p{N}", kGpt2}},
        {"smollm", {"\\p{N}", kGpt2}},
        {"codeshell", {"\\p{N}", kGpt2}},
        {"falcon", {"[\\p{P}\\$\\+<=>\\^~\\|`]+", kGpt2, "[0-9][0-9][0-9]"}},
        {"deepseek-coder", {"[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", kCjk, "\\p{N}"}},
        // Letters that Unicode normalisation would fold into others are written as \u escapes,
        // so that no editor or tool can silently change the ranges.
        {"deepseek-llm",
         {"[\r\n]",
          "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-"
          "ԯԱ-"
          "ՖႠ-"
          "ჅᎠ-"
          "Ᏽᏸ-"
          "ᏽᲐ-"
          "ᲺᲽ-"
          "Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-\u1F7Dᾀ-"
          "ᾴᾶ-"
          "ᾼ\u1FBEῂ-ῄῆ-ῌῐ-\u1FD3ῖ-\u1FDBῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\u2126ℨ\u212A-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-"
          "ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-"
          "𐑏𐒰-"
          "𐓓𐓘-"
          "𐓻𐲀-"
          "𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+",
          "\\s?[!-/:-~！-／：-～‘-‟　-。]+", "\\s+$", kCjk, "\\p{N}+"}},
    };
    return table;
}

}  // namespace

PreTokenizer::PreTokenizer(const std::string& name) : m_name(name) {
    const auto& table = pattern_table();
    const auto found = table.find(name);
    if (found == table.end()) {
        std::string known;
        for (const auto& [key, patterns] : table) known += (known.empty() ? "" : ", ") + key;
        throw std::invalid_argument("pre-tokenizer '" + name +
                                    "' is not supported (known: " + known + ")");
    }
    for (const auto& pattern : found->second) m_patterns.emplace_back(pattern);
}

// Each pattern cuts every current piece into its matches and the text between them.
std::vector<std::string> PreTokenizer::split(std::string_view text) const {
    std::vector<size_t> offsets;
    const auto code_points = unicode::decode_utf8(text, &offsets);
    std::vector<std::pair<size_t, size_t>> pieces{{0, code_points.size()}};
    for (const auto& pattern : m_patterns) {
        std::vector<std::pair<size_t, size_t>> next;
        for (const auto& [begin, end] : pieces) {
            size_t position = begin;
            while (position < end) {
                const auto [match_begin, match_end] = pattern.find(code_points, position, end);
                if (match_begin > position) next.emplace_back(position, match_begin);
                if (match_begin == end) break;
                next.emplace_back(match_begin, match_end);
                position = match_end;
            }
        }
        pieces = std::move(next);
    }
    std::vector<std::string> out;
    out.reserve(pieces.size());
    // Pieces keep the original bytes, even where the text was not valid UTF-8.
    for (const auto& [begin, end] : pieces)
        out.emplace_back(text.substr(offsets[begin], offsets[end] - offsets[begin]));
    return out;
}

}  // namespace hearth
