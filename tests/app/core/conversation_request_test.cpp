// The one request a conversation sends to the engine: its visible thread, in order, after the
// system prompt, with its settings.
#include "app/core/conversation_request.h"

#include <gtest/gtest.h>

#include "engine/runtime/engine.h"
#include "engine/text/chat_prompt.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "tests/support/templated_model.h"

namespace hearth::core {
namespace {

std::vector<std::pair<std::string, std::string>> roles_and_texts(const ChatRequest& request) {
    std::vector<std::pair<std::string, std::string>> messages;
    for (const auto& message : request.messages)
        messages.emplace_back(message.role, message.content);
    return messages;
}

TEST(ConversationRequest, HoldsTheVisibleBranchAfterTheSystemPromptWithTheSettings) {
    Conversation conversation(42, "branches");
    auto& settings = conversation.settings();
    settings.system_prompt = "Be brief.";
    settings.sampler.temperature = 0.25f;
    settings.sampler.top_k = 7;
    settings.sampler.seed = 99;
    settings.max_tokens = 33;
    settings.context_length = 1024;
    settings.overflow = OverflowPolicy::Stop;
    settings.json_mode = true;
    settings.random_seed = false;
    settings.enable_thinking = false;
    settings.reasoning_effort = "high";
    const int question = conversation.add(-1, "user", "Hi");
    const int first_answer = conversation.add(question, "assistant", "Hello!");
    conversation.add(first_answer, "user", "How are you?");
    // The question edited, and its answer regenerated: the original branch is off screen.
    const int edited = conversation.add(-1, "user", "Hello there");
    conversation.add(edited, "assistant", "Hi!");
    conversation.add(edited, "assistant", "Hello, how can I help?");
    const int follow_up = conversation.add(conversation.leaf(), "user", "Tell me a joke.");

    const ChatRequest request = chat_request(conversation);
    EXPECT_EQ(request.conversation, 42);
    EXPECT_EQ(roles_and_texts(request), (std::vector<std::pair<std::string, std::string>>{
                                            {"system", "Be brief."},
                                            {"user", "Hello there"},
                                            {"assistant", "Hello, how can I help?"},
                                            {"user", "Tell me a joke."}}));
    EXPECT_EQ(conversation.leaf(), follow_up);  // building a request changes nothing
    EXPECT_EQ(request.max_tokens, 33);
    EXPECT_EQ(request.context_length, 1024);
    EXPECT_EQ(request.sampler.temperature, 0.25f);
    EXPECT_EQ(request.sampler.top_k, 7);
    EXPECT_EQ(request.sampler.seed, 99u);
    EXPECT_EQ(request.overflow, OverflowPolicy::Stop);
    EXPECT_TRUE(request.json_mode);
    EXPECT_FALSE(request.fresh_seed);
    EXPECT_EQ(request.enable_thinking, false);
    EXPECT_EQ(request.reasoning_effort, "high");
}

TEST(ConversationRequest, ABlankSystemPromptIsLeftOutAndAFreshSeedCarriesOver) {
    Conversation conversation(1, "plain");
    conversation.settings().system_prompt = "  \n ";
    conversation.settings().random_seed = true;
    conversation.add(-1, "user", "Hi");
    const ChatRequest request = chat_request(conversation);
    EXPECT_EQ(roles_and_texts(request),
              (std::vector<std::pair<std::string, std::string>>{{"user", "Hi"}}));
    EXPECT_TRUE(request.fresh_seed);
    EXPECT_FALSE(request.enable_thinking.has_value());  // the template's default
    EXPECT_FALSE(request.reasoning_effort.has_value());
}

TEST(ConversationRequest, AnAnswerIsAskedFromItsQuestionNotFromTheAnswerItReplaces) {
    Conversation conversation(1, "regenerate");
    const int question = conversation.add(-1, "user", "Hi");
    conversation.add(question, "assistant", "Hello!");
    conversation.show_thread_to(question);
    EXPECT_EQ(roles_and_texts(chat_request(conversation)),
              (std::vector<std::pair<std::string, std::string>>{{"user", "Hi"}}));
}

// Continue asks for more of the answer that ends the thread: the answer so far is the last
// message, the assistant's, and the engine is told to go on with it.
TEST(ConversationRequest, ContinuingGivesTheAnswerSoFarAsTheMessageToGoOnWith) {
    Conversation conversation(3, "story");
    const int question = conversation.add(-1, "user", "Once upon a time");
    conversation.add(question, "assistant", "there was a");
    const ChatRequest asked = chat_request(conversation);
    EXPECT_FALSE(asked.continue_final_message);
    const ChatRequest request = continue_request(conversation);
    EXPECT_TRUE(request.continue_final_message);
    EXPECT_EQ(roles_and_texts(request),
              (std::vector<std::pair<std::string, std::string>>{{"user", "Once upon a time"},
                                                                {"assistant", "there was a"}}));
    EXPECT_EQ(request.max_tokens, asked.max_tokens);
}

// An answer's reasoning goes back with it, and the model's template decides what the model
// sees: checked on the prompt tokens the engine receives, against the template's own render.
class ReasoningSentBack : public testing::Test {
protected:
    // The prompt the engine builds for `request` on stories260K behind `family`'s template;
    // `format` receives how the engine will read what follows it.
    std::string prompt_text(const std::string& family, const ChatRequest& request,
                            ReasoningFormat* format = nullptr) {
        Engine engine({.backends = {.self_test_model = test::model_path("stories260K.gguf")},
                       .backend = {.kind = BackendPreference::Kind::Cpu, .threads = 1}});
        engine.load(test::model_with_template(m_directory, "stories260K.gguf",
                                              test::fixture_template(family)));
        const auto generation = engine.chat_generation_request(request, {}, 4096);
        const auto& tokens = generation.prompt;
        if (format != nullptr) *format = generation.reasoning;
        const auto rendered =
            build_chat_prompt(engine.chat_template(), engine.tokenizer(), request.messages,
                              {.continue_final_message = request.continue_final_message});
        EXPECT_EQ(tokens, rendered.tokens);
        return rendered.text;
    }

    // A question, an answer that reasoned, and a follow-up; or that answer to continue.
    static Conversation reasoned(bool follow_up) {
        Conversation conversation(5, "sums");
        const int question = conversation.add(-1, "user", "What is 2+2?");
        const int answer = conversation.add(question, "assistant", "It is 4.");
        conversation.find(answer)->reasoning = "Two and two make four.";
        if (follow_up) conversation.add(answer, "user", "And 3+3?");
        return conversation;
    }

    test::TempDirectory m_directory;
};

TEST_F(ReasoningSentBack, TheRequestCarriesEveryAnswersReasoning) {
    const ChatRequest request = chat_request(reasoned(true));
    ASSERT_EQ(request.messages.size(), 3u);
    EXPECT_EQ(request.messages[1].reasoning, "Two and two make four.");
    EXPECT_EQ(request.messages[0].reasoning, "");
}

// Qwen3 keeps the reasoning of answers after the last question only: a follow-up drops it,
// Continue (the answer is the last message) keeps it in its <think> block.
TEST_F(ReasoningSentBack, Qwen3KeepsOnlyTheReasoningAfterTheLastQuestion) {
    const auto follow_up = prompt_text("qwen3", chat_request(reasoned(true)));
    EXPECT_EQ(follow_up.find("Two and two"), std::string::npos) << follow_up;
    EXPECT_NE(follow_up.find("It is 4."), std::string::npos);
    const auto kept = prompt_text("qwen3", continue_request(reasoned(false)));
    EXPECT_NE(kept.find("<think>\nTwo and two make four.\n</think>\n\nIt is 4."), std::string::npos)
        << kept;
}

TEST_F(ReasoningSentBack, DeepSeekDropsEarlierReasoning) {
    const auto prompt = prompt_text("deepseek-r1-distill", chat_request(reasoned(true)));
    EXPECT_EQ(prompt.find("Two and two"), std::string::npos) << prompt;
    EXPECT_NE(prompt.find("It is 4."), std::string::npos);
}

// gpt-oss reads `thinking`: the reasoning of the answer being continued goes on the analysis
// channel.
TEST_F(ReasoningSentBack, GptOssReadsItFromThinking) {
    const auto kept = prompt_text("gpt-oss", continue_request(reasoned(false)));
    EXPECT_NE(kept.find("<|channel|>analysis<|message|>Two and two make four."), std::string::npos)
        << kept;
    const auto follow_up = prompt_text("gpt-oss", chat_request(reasoned(true)));
    EXPECT_EQ(follow_up.find("Two and two"), std::string::npos) << follow_up;
}

// An answer the token limit cut off while it reasoned (no answer text yet) goes on reasoning
// when continued: the prompt ends inside its reasoning block, whatever markup the model uses.
TEST_F(ReasoningSentBack, ContinuingAnAnswerCutOffWhileReasoningReopensItsReasoning) {
    Conversation conversation(6, "sums");
    const int question = conversation.add(-1, "user", "What is 2+2?");
    const int answer = conversation.add(question, "assistant", "");
    conversation.find(answer)->reasoning = "Two and two";
    const ChatRequest request = continue_request(conversation);
    const std::pair<const char*, const char*> cases[] = {
        {"qwen3", "<|im_start|>assistant\n<think>\nTwo and two"},
        {"deepseek-r1-distill", "<｜Assistant｜><think>\nTwo and two"},
        {"gpt-oss", "<|start|>assistant<|channel|>analysis<|message|>Two and two"}};
    for (const auto& [family, tail] : cases) {
        ReasoningFormat format;
        const auto prompt = prompt_text(family, request, &format);
        EXPECT_TRUE(prompt.ends_with(tail)) << family << ": " << prompt;
        EXPECT_EQ(format.start, ReasoningStart::Reasoning) << family;
    }
}

}  // namespace
}  // namespace hearth::core
