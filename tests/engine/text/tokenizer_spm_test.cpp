#include "engine/text/tokenizer_spm.h"

#include <gtest/gtest.h>

#include "tests/support/shared_data.h"

namespace hearth {
namespace {

std::string hex(const std::string& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (const unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::unique_ptr<Tokenizer> tokenizer_for(const std::filesystem::path& path) {
    return make_tokenizer(*GgufFile::open(path));
}

class TextPromptTest : public testing::TestWithParam<std::string> {};

// The models' text prompts tokenize, and their tokens print, exactly as llama.cpp's did.
TEST_P(TextPromptTest, MatchesLlamaCppTokensAndPieces) {
    const auto json = test::load_json(test::fixture_path("models/" + GetParam() + ".json"));
    const auto tokenizer = tokenizer_for(test::model_path(GetParam() + ".gguf"));
    int prompts = 0;
    for (const auto& value : json["prompts"].toArray()) {
        const auto prompt = value.toObject();
        const std::string text = prompt["text"].toString().toStdString();
        const auto ids = tokenizer->encode(text, {.add_special = true, .parse_special = true});
        EXPECT_EQ(ids, test::to_ids(prompt["tokens"].toArray())) << text;
        const auto check_pieces = [&](const char* ids_key, const char* hex_key) {
            const auto expected_ids = test::to_ids(prompt[ids_key].toArray());
            const auto pieces = prompt[hex_key].toArray();
            ASSERT_EQ(expected_ids.size(), static_cast<size_t>(pieces.size()));
            for (size_t i = 0; i < expected_ids.size(); ++i) {
                EXPECT_EQ(hex(tokenizer->token_to_piece(expected_ids[i], true)),
                          pieces[i].toString().toStdString())
                    << "token " << expected_ids[i];
            }
        };
        check_pieces("tokens", "token_pieces_hex");
        check_pieces("generated_ids", "generated_pieces_hex");
        ++prompts;
    }
    EXPECT_EQ(prompts, 4);
}

INSTANTIATE_TEST_SUITE_P(SharedModels, TextPromptTest,
                         testing::Values("stories260K", "llama-2-tiny-random"),
                         [](const auto& info) {
                             return info.param == "stories260K" ? "stories260K" : "llama2";
                         });

TEST(SpmTokenizer, ControlTokenTextIsOnlyParsedWhenAllowed) {
    const auto tokenizer = tokenizer_for(test::model_path("stories260K.gguf"));
    const auto parsed =
        tokenizer->encode("<s>Hi</s>", {.add_special = false, .parse_special = true});
    ASSERT_GE(parsed.size(), 3u);
    EXPECT_EQ(parsed.front(), 1);
    EXPECT_EQ(parsed.back(), 2);
    const auto literal =
        tokenizer->encode("<s>Hi</s>", {.add_special = false, .parse_special = false});
    EXPECT_EQ(std::count(literal.begin(), literal.end(), 1), 0);
    EXPECT_EQ(tokenizer->decode(literal), " <s>Hi</s>");
    EXPECT_EQ(tokenizer->token_to_piece(1, false), "");
    EXPECT_EQ(tokenizer->token_to_piece(1, true), "<s>");
    EXPECT_TRUE(tokenizer->is_end_of_generation(2));
    EXPECT_FALSE(tokenizer->is_end_of_generation(1));
}

}  // namespace
}  // namespace hearth
