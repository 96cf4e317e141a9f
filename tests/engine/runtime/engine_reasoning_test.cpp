// Reasoning split from the answer on a real model's real output: stories260K writes English,
// and the chat templates of reasoning models (DeepSeek-R1 distill, Qwen3, gpt-oss) frame it.
// Where a marker must appear in the output at a known place, the model is first run as it is,
// then again with the text of one of the tokens it chose set to the marker: the weights and so
// the tokens stay the same, and only how they read changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "engine/runtime/engine.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "tests/support/templated_model.h"

namespace hearth {
namespace {

struct Answer {
    GenerationRequest request;
    GenerationResult result;
    std::string chunk_reasoning;  // every chunk's reasoning, joined
    int chunk_reasoning_tokens = 0;
};

class EngineReasoningTest : public testing::Test {
protected:
    // An engine on stories260K with `family`'s template, some token texts replaced.
    std::unique_ptr<Engine> load(const std::string& family,
                                 const std::map<int32_t, std::string>& token_texts = {},
                                 const std::set<int32_t>& control = {}) {
        auto engine = std::make_unique<Engine>(
            EngineOptions{.backends = {.self_test_model = test::model_path("stories260K.gguf")},
                          .backend = {.kind = BackendPreference::Kind::Cpu, .threads = 1}});
        const auto directory = std::make_shared<test::TempDirectory>();
        m_directories.push_back(directory);
        engine->load(test::model_with_template(
            *directory, "stories260K.gguf", test::fixture_template(family), token_texts, control));
        return engine;
    }

    static Answer ask(Engine& engine, std::optional<bool> thinking = std::nullopt,
                      int expected_tokens = 24) {
        const ChatRequest chat{.messages = {{"user", "Tell me a story about a dog."}},
                               .max_tokens = 24,
                               .sampler = {.temperature = 0.0f},
                               .fresh_seed = false,
                               .enable_thinking = thinking};
        Answer answer;
        answer.request = engine.chat_generation_request(chat, {}, engine.context_length());
        const GenerationSink sink{.on_chunk = [&](const TokenChunk& chunk) {
            answer.chunk_reasoning += chunk.reasoning;
            answer.chunk_reasoning_tokens += chunk.reasoning_tokens;
            return true;
        }};
        answer.result = engine.chat(chat, {}, sink);
        EXPECT_EQ(answer.result.stats.generated_tokens, expected_tokens);
        return answer;
    }

    // The text of tokens [first, last) as the engine streams it, leading whitespace dropped (the
    // splitter drops it after a marker).
    static std::string text_of(const Engine& engine, const std::vector<int32_t>& tokens,
                               size_t first, size_t last) {
        std::string text;
        for (size_t i = first; i < last; ++i) text += engine.tokenizer().token_to_piece(tokens[i]);
        text.erase(0, std::min(text.size(), text.find_first_not_of(" \n")));
        return text;
    }

    // A step at or after `from` whose token, and the `width - 1` after it, appear neither
    // earlier nor in the prompt, so that renaming them changes only those steps' texts.
    static size_t unique_step(const Answer& answer, size_t from, size_t width = 1) {
        const auto& tokens = answer.result.tokens;
        const auto& prompt = answer.request.prompt;
        const auto fresh = [&](size_t step) {
            const auto in = [&](auto first, auto last) {
                return std::find(first, last, tokens[step]) != last;
            };
            return !in(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(step)) &&
                   !in(prompt.begin(), prompt.end());
        };
        for (size_t step = from; step + width <= tokens.size(); ++step) {
            bool all = true;
            for (size_t i = step; i < step + width; ++i) all = all && fresh(i);
            if (all) return step;
        }
        ADD_FAILURE() << "no step to mark";
        return tokens.size() - 1;
    }

    // `answer` (the same tokens as `plain`) split at `close`: tokens up to it (it included) are
    // reasoning, whose text begins at `first` (after the opening markers); from `answer_from`
    // on, the answer.
    static void expect_split(const Engine& engine, const Answer& answer, const Answer& plain,
                             size_t first, size_t close, size_t answer_from) {
        ASSERT_EQ(answer.request.prompt, plain.request.prompt);
        ASSERT_EQ(answer.result.tokens, plain.result.tokens);
        const auto& tokens = answer.result.tokens;
        EXPECT_EQ(answer.result.stats.reasoning_tokens, static_cast<int>(close) + 1);
        EXPECT_EQ(answer.result.reasoning, text_of(engine, tokens, first, close));
        EXPECT_EQ(answer.result.text, text_of(engine, tokens, answer_from, tokens.size()));
        EXPECT_EQ(answer.chunk_reasoning, answer.result.reasoning);
        EXPECT_EQ(answer.chunk_reasoning_tokens, answer.result.stats.reasoning_tokens);
    }

    std::vector<std::shared_ptr<test::TempDirectory>> m_directories;
};

// DeepSeek-R1 distills end the generation prompt inside `<think>`: what the model writes is
// reasoning until it closes the block.
TEST_F(EngineReasoningTest, ADistillStartsInsideItsReasoning) {
    const auto engine = load("deepseek-r1-distill");
    const auto answer = ask(*engine);
    EXPECT_EQ(answer.request.reasoning,
              (ReasoningFormat{ReasoningMarkup::ThinkTags, ReasoningStart::Reasoning}));
    const auto& result = answer.result;
    EXPECT_EQ(result.stats.reasoning_tokens, result.stats.generated_tokens);
    EXPECT_EQ(result.text, "");
    EXPECT_EQ(result.reasoning, text_of(*engine, result.tokens, 0, result.tokens.size()));
    EXPECT_FALSE(result.reasoning.empty());
    EXPECT_EQ(answer.chunk_reasoning, result.reasoning);
    EXPECT_EQ(answer.chunk_reasoning_tokens, result.stats.reasoning_tokens);
    // Never answered: the reasoning lasted from its first token to the last.
    const auto& times = result.stats.token_times_ns;
    EXPECT_EQ(result.stats.reasoning_ns, times.back() - times.front());
}

// The same output with one token reading `</think>`: the tokens up to it (it included) are
// reasoning, those after it the answer, and the reasoning lasted until the answer's first.
TEST_F(EngineReasoningTest, TheClosingMarkerHandsOverToTheAnswer) {
    const auto plain = ask(*load("deepseek-r1-distill"));
    const size_t close = unique_step(plain, 6);
    const auto engine = load("deepseek-r1-distill", {{plain.result.tokens[close], "</think>"}});
    const auto answer = ask(*engine);
    expect_split(*engine, answer, plain, 0, close, close + 1);
    const auto& times = answer.result.stats.token_times_ns;
    EXPECT_EQ(answer.result.stats.reasoning_ns, times[close + 1] - times[0]);
}

// Qwen3 thinking: the model opens the block itself; the opening token counts as reasoning.
TEST_F(EngineReasoningTest, Qwen3OpensAndClosesItsBlock) {
    const auto plain = ask(*load("qwen3"));
    EXPECT_EQ(plain.request.reasoning,
              (ReasoningFormat{ReasoningMarkup::ThinkTags, ReasoningStart::MayOpen}));
    EXPECT_EQ(plain.result.stats.reasoning_tokens, 0);  // it did not open one: all answer
    EXPECT_EQ(plain.result.text, text_of(*load("qwen3"), plain.result.tokens, 0, 24));
    const size_t close = unique_step(plain, 6);
    const auto engine = load(
        "qwen3", {{plain.result.tokens[0], "<think>"}, {plain.result.tokens[close], "</think>"}});
    expect_split(*engine, ask(*engine), plain, 1, close, close + 1);
}

// Qwen3 with thinking off renders an empty block: whatever follows is the answer.
TEST_F(EngineReasoningTest, Qwen3WithThinkingOffAnswersOnly) {
    const auto engine = load("qwen3");
    const auto answer = ask(*engine, false);
    EXPECT_EQ(answer.request.reasoning,
              (ReasoningFormat{ReasoningMarkup::ThinkTags, ReasoningStart::Answer}));
    EXPECT_EQ(answer.result.stats.reasoning_tokens, 0);
    EXPECT_EQ(answer.result.reasoning, "");
    EXPECT_EQ(answer.result.stats.reasoning_ns, 0);
}

// gpt-oss: the analysis channel is reasoning, the final channel the answer; the headers
// between them are neither.
TEST_F(EngineReasoningTest, GptOssChannelsSplitTheOutput) {
    const auto plain = ask(*load("gpt-oss"));
    EXPECT_EQ(plain.request.reasoning,
              (ReasoningFormat{ReasoningMarkup::Harmony, ReasoningStart::MayOpen}));
    const size_t close = unique_step(plain, 6, 2);
    const auto engine =
        load("gpt-oss", {{plain.result.tokens[0], "<|channel|>analysis<|message|>"},
                         {plain.result.tokens[close], "<|end|><|start|>assistant"},
                         {plain.result.tokens[close + 1], "<|channel|>final<|message|>"}});
    expect_split(*engine, ask(*engine), plain, 1, close, close + 2);
}

// gpt-oss's markers are control tokens, which print nothing: the splitter reads them all the
// same. (<|channel|> is the one the prompt of a first question lacks, so the prompt, and with
// it the output, stays the same when it becomes a control token.)
TEST_F(EngineReasoningTest, GptOssControlMarkersReachTheSplitter) {
    const auto plain = ask(*load("gpt-oss"));
    const size_t close = unique_step(plain, 6, 2);
    const int32_t channel = plain.result.tokens[0];
    const auto engine = load("gpt-oss",
                             {{channel, "<|channel|>"},
                              {plain.result.tokens[1], "analysis<|message|>"},
                              {plain.result.tokens[close], "<|end|><|start|>assistant"},
                              {plain.result.tokens[close + 1], "<|channel|>final<|message|>"}},
                             {channel});
    ASSERT_TRUE(engine->tokenizer().token_to_piece(channel).empty());
    expect_split(*engine, ask(*engine), plain, 2, close, close + 2);
}

// <|return|> ends gpt-oss's turn: the same output with a token after the final channel's
// header reading <|return|> stops there, the answer being the final channel's text up to it.
TEST_F(EngineReasoningTest, GptOssStopsAtReturn) {
    const auto plain = ask(*load("gpt-oss"));
    const auto& tokens = plain.result.tokens;
    const size_t close = unique_step(plain, 6, 2);
    const size_t end = unique_step(plain, close + 4);
    ASSERT_LT(end, tokens.size() - 1);  // it stops before the token limit
    const auto engine = load("gpt-oss",
                             {{tokens[0], "<|channel|>analysis<|message|>"},
                              {tokens[close], "<|end|><|start|>assistant"},
                              {tokens[close + 1], "<|channel|>final<|message|>"},
                              {tokens[end], "<|return|>"}},
                             {tokens[end]});
    ASSERT_TRUE(engine->tokenizer().is_end_of_generation(tokens[end]));
    // The end token is no token of the answer: `end` were generated before it.
    const auto answer = ask(*engine, std::nullopt, static_cast<int>(end));
    ASSERT_EQ(answer.request.prompt, plain.request.prompt);
    const auto& result = answer.result;
    EXPECT_EQ(std::vector<int32_t>(result.tokens.begin(), result.tokens.begin() + end),
              std::vector<int32_t>(tokens.begin(), tokens.begin() + end));
    EXPECT_EQ(result.reasoning, text_of(*engine, tokens, 1, close));
    EXPECT_EQ(result.text, text_of(*engine, tokens, close + 2, end));
    EXPECT_EQ(result.text.find("<|return|>"), std::string::npos);
}

// gpt-oss's <|end|> closes a message and the model goes on (from the analysis channel to the
// final one); its turn ends at <|return|> or <|call|>. A vocabulary without those two still
// ends at <|end|>, as Phi-3's does.
TEST_F(EngineReasoningTest, EndEndsTheTurnUnlessReturnAndCallDo) {
    const int32_t end = 500;
    const int32_t return_id = 501;
    const int32_t call = 502;
    const auto phi3 = load("gpt-oss", {{end, "<|end|>"}}, {end});
    EXPECT_TRUE(phi3->tokenizer().is_end_of_generation(end));
    const auto gpt_oss =
        load("gpt-oss", {{end, "<|end|>"}, {return_id, "<|return|>"}, {call, "<|call|>"}},
             {end, return_id, call});
    EXPECT_FALSE(gpt_oss->tokenizer().is_end_of_generation(end));
    EXPECT_TRUE(gpt_oss->tokenizer().is_end_of_generation(return_id));
    EXPECT_TRUE(gpt_oss->tokenizer().is_end_of_generation(call));
    EXPECT_TRUE(gpt_oss->tokenizer().token_to_piece(end).empty());  // never in the text
}

}  // namespace
}  // namespace hearth
