// The one request a conversation sends to the engine: its visible thread, in order, after the
// system prompt, with its settings.
#include "app/core/conversation_request.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hearth::core
