// A chat answered through the API, as the history keeps it: its system prompt, its turns in
// order, the answer with how it was made, and a title that says where it came from.
#include "app/core/api_conversation.h"

#include <gtest/gtest.h>

namespace hearth::core {
namespace {

ChatRequest request_of(std::vector<ChatMessage> messages) {
    ChatRequest request;
    request.messages = std::move(messages);
    request.max_tokens = 64;
    request.sampler = {.temperature = 0.5f, .top_k = 12, .seed = 99};
    request.fresh_seed = false;
    return request;
}

GenerationResult answer(const std::string& text) {
    GenerationResult result;
    result.text = text;
    result.stats.prompt_tokens = 30;
    result.stats.generated_tokens = 5;
    result.stats.stop_reason = StopReason::EndOfGeneration;
    return result;
}

const AnswerOrigin kOrigin{.model_file = "/models/tiny.gguf", .backend = "cpu (avx2, 2 threads)"};

// The texts of the conversation's thread, as "role: text".
std::vector<std::string> thread_of(const Conversation& conversation) {
    std::vector<std::string> lines;
    for (const int id : conversation.thread()) {
        const Message* message = conversation.find(id);
        lines.push_back((message->role + ": " + message->text).toStdString());
    }
    return lines;
}

TEST(ApiConversation, KeepsTheTurnsAndTheAnswerWithHowItWasMade) {
    const auto request = request_of({{.role = "system", .content = "Be brief."},
                                     {.role = "user", .content = "Name a colour."},
                                     {.role = "assistant", .content = "Blue."},
                                     {.role = "user", .content = "Another?"}});
    const Conversation conversation = api_conversation(request, answer("Green."), kOrigin);
    EXPECT_EQ(conversation.title(), "API: Name a colour.");
    EXPECT_EQ(conversation.settings().system_prompt, "Be brief.");
    EXPECT_EQ(conversation.settings().max_tokens, 64);
    EXPECT_FALSE(conversation.settings().random_seed);
    EXPECT_EQ(thread_of(conversation),
              (std::vector<std::string>{"user: Name a colour.", "assistant: Blue.",
                                        "user: Another?", "assistant: Green."}));
    const Message* last = conversation.find(conversation.leaf());
    EXPECT_TRUE(last->finished);
    ASSERT_TRUE(last->generation.has_value());
    EXPECT_EQ(last->generation->model_file, kOrigin.model_file);
    EXPECT_EQ(last->generation->backend, kOrigin.backend);
    EXPECT_EQ(last->generation->seed, 99u);
    EXPECT_EQ(last->generation->sampler.top_k, 12);
    EXPECT_EQ(last->generation->stats.generated_tokens, 5);
    EXPECT_EQ(last->generation->stats.stop_reason, StopReason::EndOfGeneration);
}

// Developer messages join the system prompt; tool results and calls have no place here; a seed
// the server drew is not known, so none is claimed.
TEST(ApiConversation, LeavesOutWhatAConversationCannotHold) {
    auto request = request_of({{.role = "system", .content = "Rule one."},
                               {.role = "developer", .content = "Rule two."},
                               {.role = "user", .content = "Weather?"},
                               {.role = "assistant", .tool_calls = {{.name = "weather"}}},
                               {.role = "tool", .content = "{\"sun\":true}", .name = "weather"}});
    request.fresh_seed = true;
    const Conversation conversation = api_conversation(request, answer("Sunny."), kOrigin);
    EXPECT_EQ(conversation.settings().system_prompt, "Rule one.\n\nRule two.");
    EXPECT_TRUE(conversation.settings().random_seed);
    EXPECT_EQ(thread_of(conversation),
              (std::vector<std::string>{"user: Weather?", "assistant: Sunny."}));
    EXPECT_EQ(conversation.find(conversation.leaf())->generation->seed, 0u);
}

// The title is the first question's first line, cut at a word, and says it came from the API.
TEST(ApiConversation, TitlesSayTheyCameFromTheApi) {
    const auto title = [](const std::string& question) {
        return api_conversation(request_of({{.role = "user", .content = question}}), answer("x"),
                                kOrigin)
            .title();
    };
    EXPECT_EQ(title("  Write   a haiku\nabout rain"), "API: Write a haiku");
    EXPECT_EQ(title("Summarise the following article in three bullet points for me please"),
              "API: Summarise the following article in three…");
    EXPECT_EQ(api_conversation(request_of({}), answer("x"), kOrigin).title(), "API: (no question)");
}

}  // namespace
}  // namespace hearth::core
