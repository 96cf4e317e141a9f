#include "engine/grammar/json_constraint.h"

#include <gtest/gtest.h>

#include "engine/model/model.h"
#include "engine/text/jinja/json.h"
#include "tests/support/shared_data.h"

namespace hearth {
namespace {

class JsonConstraintTest : public testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        m_file = GgufFile::open(test::model_path(GetParam()));
        m_tokenizer = make_tokenizer(*m_file);
        m_trie = std::make_shared<const TokenTrie>(*m_tokenizer);
    }
    std::unique_ptr<GgufFile> m_file;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::shared_ptr<const TokenTrie> m_trie;
};

// The trie walk finds exactly the tokens a token-by-token check accepts, in many states.
TEST_P(JsonConstraintTest, TheTrieWalkAgreesWithCheckingEveryToken) {
    const JsonGrammar grammar(JsonSchema::any_object());
    for (const char* prefix : {"", "{", R"({"a)", R"({"a":)", R"({"a":1)", R"({"a":[tr)",
                               R"({"a":"\)", "{\"a\":\"\xc3"}) {
        auto state = grammar.start();
        ASSERT_TRUE(grammar.advance(state, prefix));
        std::vector<int32_t> walked;
        m_trie->walk(
            state, [&](JsonGrammar::State& s, uint8_t byte) { return grammar.advance(s, byte); },
            [&](int32_t token, const JsonGrammar::State&) { walked.push_back(token); });
        std::sort(walked.begin(), walked.end());
        std::vector<int32_t> checked;
        for (int32_t token = 0; token < m_trie->vocab_size(); ++token) {
            auto copy = state;
            const auto bytes = m_trie->bytes(token);
            if (!bytes.empty() && grammar.advance(copy, bytes)) checked.push_back(token);
        }
        EXPECT_EQ(walked, checked) << prefix;
        EXPECT_FALSE(checked.empty()) << prefix;
    }
}

// Whatever the logits say, the picks form a document, and it is complete within the budget.
TEST_P(JsonConstraintTest, RandomLogitsStillGiveWholeDocumentsWithinTheBudget) {
    const auto grammar = std::make_shared<const JsonGrammar>(JsonSchema::parse(
        R"({"properties": {"name": {"type": "string"}, "tags": {"items": {"type": "number"}}},
            "required": ["name", "tags"]})"));
    Random random(7);
    std::vector<float> logits(static_cast<size_t>(m_trie->vocab_size()));
    for (const int budget : {24, 40, 80}) {
        for (int run = 0; run < 10; ++run) {
            JsonConstraint constraint(grammar, m_trie, *m_tokenizer);
            Sampler sampler({.temperature = 1.0f,
                             .top_k = 0,
                             .top_p = 1.0f,
                             .min_p = 0.0f,
                             .seed = static_cast<uint64_t>(run)});
            std::string text;
            for (int left = budget; left > 0 && !constraint.finished(); --left) {
                for (auto& logit : logits) logit = static_cast<float>(random.uniform() * 8.0);
                const int32_t token = constraint.pick(logits, sampler, left);
                ASSERT_GE(token, 0);
                ASSERT_FALSE(m_tokenizer->is_end_of_generation(token));
                constraint.accept(token);
                text += m_trie->bytes(token);
            }
            EXPECT_TRUE(constraint.finished()) << budget << ": " << text;
            const auto value = jinja::parse_json(text);
            EXPECT_TRUE(value.as_object().find("name")->is_string()) << text;
            EXPECT_TRUE(value.as_object().find("tags")->is_array()) << text;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, JsonConstraintTest,
                         testing::Values("stories260K.gguf", "synth-qwen2-256-Q8_0.gguf",
                                         "synth-llama3-256-Q8_0.gguf"));

}  // namespace
}  // namespace hearth
