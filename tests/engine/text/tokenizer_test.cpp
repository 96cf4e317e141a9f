// Every case of every tokenizer fixture (shared/fixtures/tokenizer): llama.cpp's ids, tokenized
// without BOS/EOS and without parsing special-token text; decoding gives the text back, and
// streaming the pieces through a Utf8Buffer gives the same text as decoding at once.
#include "engine/text/tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/format/gguf_writer.h"
#include "engine/model/load_error.h"
#include "engine/text/utf8_buffer.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "tests/support/tokenizer_cases.h"

namespace hearth {
namespace {

class TokenizerFixtureTest : public testing::TestWithParam<std::string> {};

TEST_P(TokenizerFixtureTest, EveryCaseMatchesLlamaCppAndRoundTrips) {
    const auto vocabulary = test::fixture_path("tokenizer/ggml-vocab-" + GetParam() + ".gguf");
    const auto tokenizer = make_tokenizer(*GgufFile::open(vocabulary));
    const bool sentencepiece = tokenizer->vocabulary().model == "llama";
    const auto cases = test::load_tokenizer_cases(vocabulary);
    ASSERT_GT(cases.size(), 30u);
    int matched = 0;
    for (const auto& test_case : cases) {
        const auto ids =
            tokenizer->encode(test_case.text, {.add_special = false, .parse_special = false});
        EXPECT_EQ(ids, test_case.ids) << "'" << test_case.text << "'";
        matched += ids == test_case.ids ? 1 : 0;
        // SentencePiece puts a dummy-prefix space in front of the text; byte-level BPE is exact.
        const std::string decoded = tokenizer->decode(ids);
        const std::string expected =
            sentencepiece && !test_case.text.empty() ? " " + test_case.text : test_case.text;
        EXPECT_EQ(decoded, expected);
        Utf8Buffer buffer;
        std::string streamed;
        for (const int32_t id : ids) streamed += buffer.push(tokenizer->token_to_piece(id));
        streamed += buffer.flush();
        EXPECT_EQ(streamed, decoded);
    }
    std::printf("%s: %d of %zu cases match\n", GetParam().c_str(), matched, cases.size());
}

INSTANTIATE_TEST_SUITE_P(SharedVocabularies, TokenizerFixtureTest,
                         testing::Values("llama-spm", "phi-3", "llama-bpe", "qwen2", "gpt-2",
                                         "deepseek-llm", "deepseek-coder", "falcon", "starcoder",
                                         "refact", "mpt"),
                         [](const auto& info) {
                             std::string name = info.param;
                             for (char& c : name) {
                                 if (c == '-') c = '_';
                             }
                             return name;
                         });

TEST(Tokenizer, EveryVocabularyWithCasesIsCovered) {
    int with_cases = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test::fixture_path("tokenizer"))) {
        if (entry.path().extension() == ".inp") ++with_cases;
    }
    EXPECT_EQ(with_cases, 11);
}

TEST(Tokenizer, SpecialTokenTextIsParsedOnlyWhenAllowed) {
    const auto tokenizer =
        make_tokenizer(*GgufFile::open(test::fixture_path("tokenizer/ggml-vocab-qwen2.gguf")));
    const std::string text = "<|im_start|>user\nHi<|im_end|>";
    const auto parsed = tokenizer->encode(text, {.add_special = false, .parse_special = true});
    const auto& vocab = tokenizer->vocabulary();
    ASSERT_GE(parsed.size(), 4u);
    EXPECT_EQ(vocab.tokens[parsed.front()], "<|im_start|>");
    EXPECT_EQ(vocab.tokens[parsed.back()], "<|im_end|>");
    const auto literal = tokenizer->encode(text, {.add_special = false, .parse_special = false});
    EXPECT_GT(literal.size(), parsed.size());
    EXPECT_EQ(tokenizer->decode(literal), text);
    EXPECT_EQ(tokenizer->decode(parsed), "user\nHi");
    EXPECT_EQ(tokenizer->decode(parsed, true), text);
}

// Phi-3's file types "</s>" (id 2) as user-defined, which would make it special everywhere.
// Like llama.cpp, Hearth treats an end-of-turn marker as a control token: typed text stays text
// unless special-token parsing is on, and the token itself prints only when asked to.
TEST(Tokenizer, AnEndMarkerTypedUserDefinedIsAControlToken) {
    const auto tokenizer =
        make_tokenizer(*GgufFile::open(test::fixture_path("tokenizer/ggml-vocab-phi-3.gguf")));
    const auto& vocab = tokenizer->vocabulary();
    const int32_t end = 2;
    ASSERT_EQ(vocab.tokens[end], "</s>");
    EXPECT_EQ(vocab.kinds[end], TokenKind::Control);
    EXPECT_TRUE(tokenizer->is_end_of_generation(end));
    EXPECT_TRUE(tokenizer->is_end_of_generation(vocab.eos));  // <|endoftext|>, still

    const std::string typed = "Close it with </s> please";
    const auto literal = tokenizer->encode(typed, {.add_special = false, .parse_special = false});
    EXPECT_EQ(std::count(literal.begin(), literal.end(), end), 0);
    EXPECT_EQ(tokenizer->decode(literal), " " + typed);  // SentencePiece's space prefix
    const auto parsed = tokenizer->encode(typed, {.add_special = false, .parse_special = true});
    EXPECT_EQ(std::count(parsed.begin(), parsed.end(), end), 1);
    EXPECT_EQ(tokenizer->decode(parsed).find("</s>"), std::string::npos);

    const std::vector<int32_t> alone{end};
    EXPECT_EQ(tokenizer->decode(alone), "");  // a reply that ends there shows nothing of it
    EXPECT_EQ(tokenizer->decode(alone, true), "</s>");
}

TEST(Tokenizer, RefusesTokenizersItCannotRunByName) {
    // gpt-neox's vocabulary predates tokenizer.ggml.pre: guessing its pre-tokenizer would
    // mis-tokenize silently, so it is refused.
    try {
        make_tokenizer(*GgufFile::open(test::fixture_path("tokenizer/ggml-vocab-gpt-neox.gguf")));
        FAIL() << "expected LoadError";
    } catch (const LoadError& error) {
        EXPECT_NE(std::string(error.what()).find("pre-tokenizer 'default' is not supported"),
                  std::string::npos)
            << error.what();
    }
    GgufWriter writer;
    writer.set("tokenizer.ggml.model", GgufValue(std::string("wordpiece")));
    writer.set("tokenizer.ggml.tokens",
               GgufValue(GgufArray{GgufValueType::String, {GgufValue(std::string("a"))}}));
    const test::TempDirectory directory;
    try {
        make_tokenizer(*GgufFile::open(directory.write("vocab.gguf", writer.serialize())));
        FAIL() << "expected LoadError";
    } catch (const LoadError& error) {
        EXPECT_NE(std::string(error.what()).find("unknown tokenizer model 'wordpiece'"),
                  std::string::npos);
    }
}

// Found by probing tokenizer_encode_fuzz with long inputs: BPE merging rescanned every pair of
// a piece after each merge, O(n^2) in the piece's length, and a whitespace run is one piece; a
// pasted run of 20,000 spaces took minutes and this one would run past ctest's timeout. It
// must still come back whole, in far fewer tokens than characters.
TEST(Tokenizer, ALongRunOfWhitespaceIsOnePieceThatStillEncodesWhole) {
    for (const char* name : {"llama-bpe", "qwen2"}) {
        SCOPED_TRACE(name);
        const auto tokenizer = make_tokenizer(*GgufFile::open(
            test::fixture_path(std::string("tokenizer/ggml-vocab-") + name + ".gguf")));
        const std::string text =
            "x" + std::string(100'000, ' ') + "\n\n" + std::string(50'000, '\t');
        const auto ids = tokenizer->encode(text, {.add_special = false});
        EXPECT_EQ(tokenizer->decode(ids), text);
        EXPECT_LT(ids.size(), text.size() / 4);
    }
}

// Found while building the fuzz corpus: the SentencePiece refusal of Baichuan's vocabulary (it
// has no unknown token) was the only load error that did not name the file.
TEST(Tokenizer, ASentencePieceVocabularyItCannotLoadIsRefusedNamingTheFile) {
    const auto path = test::fixture_path("tokenizer/ggml-vocab-baichuan.gguf");
    try {
        make_tokenizer(*GgufFile::open(path));
        FAIL() << "expected LoadError";
    } catch (const LoadError& error) {
        EXPECT_EQ(std::string(error.what()),
                  path.string() + ": the SentencePiece vocabulary has no unknown token");
    }
}

}  // namespace
}  // namespace hearth
