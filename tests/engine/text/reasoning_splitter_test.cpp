// The split of a model's output into reasoning and answer, on prompts the shared templates
// render (Qwen3 with thinking on and off, a DeepSeek-R1 distill, gpt-oss), with the output fed
// whole and one byte at a time: markers split across tokens must split the same way.
#include "engine/text/reasoning_splitter.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "engine/text/chat_template.h"
#include "tests/support/template_fixtures.h"

namespace hearth {
namespace {

ChatTemplate fixture_chat_template(const std::string& family) {
    const auto fixture = test::template_fixture(family);
    return ChatTemplate(test::fixture_template(family), test::fixture_text(fixture, "bos_token"),
                        test::fixture_text(fixture, "eos_token"));
}

// The prompt a front end sends for one question, and the format read from it.
ReasoningFormat format_after_question(const std::string& family,
                                      std::optional<bool> enable_thinking = std::nullopt) {
    const auto chat = fixture_chat_template(family);
    ChatRenderOptions options;
    options.now = test::fixture_now();
    options.enable_thinking = enable_thinking;
    const std::vector<ChatMessage> question{{.role = "user", .content = "What is 2+2?"}};
    const std::string prompt = chat.render(question, options);
    return chat.reasoning_format(prompt);
}

SplitText split_whole(ReasoningFormat format, std::string_view output) {
    ReasoningSplitter splitter(format);
    SplitText out = splitter.push(output);
    const SplitText tail = splitter.flush();
    out.reasoning += tail.reasoning;
    out.answer += tail.answer;
    return out;
}

SplitText split_bytewise(ReasoningFormat format, std::string_view output) {
    ReasoningSplitter splitter(format);
    SplitText out;
    for (const char byte : output) {
        const SplitText part = splitter.push(std::string_view(&byte, 1));
        out.reasoning += part.reasoning;
        out.answer += part.answer;
    }
    const SplitText tail = splitter.flush();
    out.reasoning += tail.reasoning;
    out.answer += tail.answer;
    return out;
}

void expect_split(ReasoningFormat format, std::string_view output, const std::string& reasoning,
                  const std::string& answer) {
    for (const auto& split : {split_whole(format, output), split_bytewise(format, output)}) {
        EXPECT_EQ(split.reasoning, reasoning) << output;
        EXPECT_EQ(split.answer, answer) << output;
    }
}

TEST(ReasoningSplitterTest, Qwen3ThinkingOnMayOpenABlock) {
    const auto format = format_after_question("qwen3");
    EXPECT_EQ(format, (ReasoningFormat{ReasoningMarkup::ThinkTags, ReasoningStart::MayOpen}));
    expect_split(format, "<think>\nTwo and two.\n</think>\n\nIt is 4.", "Two and two.\n",
                 "It is 4.");
    // A model that answers straight away keeps its text as it came, `<` included.
    expect_split(format, "<b>4</b>", "", "<b>4</b>");
    expect_split(format, " 4", "", " 4");
}

TEST(ReasoningSplitterTest, Qwen3ThinkingOffIsAllAnswer) {
    const auto format = format_after_question("qwen3", false);
    EXPECT_EQ(format, (ReasoningFormat{ReasoningMarkup::ThinkTags, ReasoningStart::Answer}));
    expect_split(format, "It is 4. <think>not this</think>", "",
                 "It is 4. <think>not this</think>");
}

TEST(ReasoningSplitterTest, DeepSeekDistillStartsInsideTheBlock) {
    const auto format = format_after_question("deepseek-r1-distill");
    EXPECT_EQ(format, (ReasoningFormat{ReasoningMarkup::ThinkTags, ReasoningStart::Reasoning}));
    expect_split(format, "Two and two make four.\n</think>\n\nThe answer is 4.",
                 "Two and two make four.\n", "The answer is 4.");
    // Cut off while reasoning: everything so far is reasoning, a partial marker included.
    expect_split(format, "Still thinking </thi", "Still thinking </thi", "");
}

// The prompt decides, not the family: this QwQ template opens the block in its generation
// prompt and closes it again unless enable_thinking is set; SmolLM3 lets the model open it, or
// closes an empty one when thinking is off.
TEST(ReasoningSplitterTest, QwqAndSmolLm3FollowTheirPrompts) {
    EXPECT_EQ(format_after_question("qwq", true),
              (ReasoningFormat{ReasoningMarkup::ThinkTags, ReasoningStart::Reasoning}));
    EXPECT_EQ(format_after_question("qwq"),
              (ReasoningFormat{ReasoningMarkup::ThinkTags, ReasoningStart::Answer}));
    EXPECT_EQ(format_after_question("smollm3"),
              (ReasoningFormat{ReasoningMarkup::ThinkTags, ReasoningStart::MayOpen}));
    EXPECT_EQ(format_after_question("smollm3", false),
              (ReasoningFormat{ReasoningMarkup::ThinkTags, ReasoningStart::Answer}));
}

TEST(ReasoningSplitterTest, GptOssAnalysisChannelIsReasoning) {
    const auto format = format_after_question("gpt-oss");
    EXPECT_EQ(format, (ReasoningFormat{ReasoningMarkup::Harmony, ReasoningStart::MayOpen}));
    expect_split(format,
                 "<|channel|>analysis<|message|>User asks 2+2. Easy.<|end|>"
                 "<|start|>assistant<|channel|>final<|message|>2 + 2 = 4.",
                 "User asks 2+2. Easy.", "2 + 2 = 4.");
    // Straight to the final channel, and output that is no harmony at all.
    expect_split(format, "<|channel|>final<|message|>4", "", "4");
    expect_split(format, "four", "", "four");
}

// Real harmony output as gpt-oss writes it (markers printed, as llama.cpp prints special tokens):
// reasoning over several lines with code and angle brackets, then an answer in Markdown, fed in
// every two-piece split and in seeded random pieces of 1 to 12 bytes. However the stream is cut,
// markers included, it splits the same way.
TEST(ReasoningSplitterTest, GptOssOutputSplitsTheSameInAnyPieces) {
    const auto format = format_after_question("gpt-oss");
    const std::string reasoning =
        "The user asks for a C++ loop. We need to show `for (int i = 0; i < n; ++i)`.\n\n"
        "Maybe mention <vector> and that i < n, not i <= n. Also a range-for. Keep it short.";
    const std::string answer =
        "Here is a loop:\n\n```cpp\n#include <vector>\n\nfor (int i = 0; i < n; ++i) {\n"
        "    total += values[i];\n}\n```\n\n**Note:** `i < n` stops before `n`.";
    const std::string output = "<|channel|>analysis<|message|>" + reasoning +
                               "<|end|><|start|>assistant<|channel|>final<|message|>" + answer;
    const auto split_in = [&](const std::vector<size_t>& cuts) {
        ReasoningSplitter splitter(format);
        SplitText out;
        size_t from = 0;
        for (size_t cut : cuts) {
            const SplitText part = splitter.push(std::string_view(output).substr(from, cut - from));
            out.reasoning += part.reasoning;
            out.answer += part.answer;
            from = cut;
        }
        const SplitText part = splitter.push(std::string_view(output).substr(from));
        const SplitText tail = splitter.flush();
        out.reasoning += part.reasoning + tail.reasoning;
        out.answer += part.answer + tail.answer;
        return out;
    };
    for (size_t cut = 1; cut < output.size(); ++cut) {
        const SplitText split = split_in({cut});
        ASSERT_EQ(split.reasoning, reasoning) << "cut at " << cut;
        ASSERT_EQ(split.answer, answer) << "cut at " << cut;
    }
    std::mt19937 random(18);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<size_t> cuts;
        for (size_t at = 0;;) {
            at += 1 + random() % 12;
            if (at >= output.size()) break;
            cuts.push_back(at);
        }
        const SplitText split = split_in(cuts);
        ASSERT_EQ(split.reasoning, reasoning) << "trial " << trial;
        ASSERT_EQ(split.answer, answer) << "trial " << trial;
    }
}

TEST(ReasoningSplitterTest, GptOssPromptInsideAnalysisStartsInReasoning) {
    const auto chat = fixture_chat_template("gpt-oss");
    const std::string prompt = "<|start|>assistant<|channel|>analysis<|message|>Let me see";
    EXPECT_EQ(chat.reasoning_format(prompt),
              (ReasoningFormat{ReasoningMarkup::Harmony, ReasoningStart::Reasoning}));
    const std::string final_prompt = "<|start|>assistant<|channel|>final<|message|>The";
    EXPECT_EQ(chat.reasoning_format(final_prompt),
              (ReasoningFormat{ReasoningMarkup::Harmony, ReasoningStart::Answer}));
}

TEST(ReasoningSplitterTest, TemplatesWithoutReasoningPassTextThrough) {
    const auto format = format_after_question("llama-3.1-instruct");
    EXPECT_EQ(format.markup, ReasoningMarkup::None);
    expect_split(format, "  <think>kept</think> as is", "", "  <think>kept</think> as is");
}

TEST(ReasoningSplitterTest, DecidingUntilTheOpeningMarkerIsWhole) {
    ReasoningSplitter splitter({ReasoningMarkup::ThinkTags, ReasoningStart::MayOpen});
    EXPECT_TRUE(splitter.deciding());
    EXPECT_TRUE(splitter.push("<thi").answer.empty());
    EXPECT_TRUE(splitter.deciding());
    splitter.push("nk>");
    EXPECT_FALSE(splitter.deciding());
    EXPECT_TRUE(splitter.in_reasoning());
    EXPECT_EQ(splitter.push("hm</think>ok").answer, "ok");
    EXPECT_FALSE(splitter.in_reasoning());
}

}  // namespace
}  // namespace hearth
