#include "app/core/conversation.h"

#include <gtest/gtest.h>

namespace hearth::core {
namespace {

TEST(Conversation, EditingAndRegeneratingKeepEveryBranchReachable) {
    Conversation conversation(1, "test");
    const int question = conversation.add(-1, "user", "Hi");
    const int first_answer = conversation.add(question, "assistant", "Hello!");
    const int follow_up = conversation.add(first_answer, "user", "How are you?");
    const int reply = conversation.add(follow_up, "assistant", "Fine.");
    EXPECT_EQ(conversation.thread(), (std::vector<int>{question, first_answer, follow_up, reply}));

    // Regenerate the first answer: a sibling, and the thread now ends there.
    const int second_answer = conversation.add(question, "assistant", "Hi there!");
    EXPECT_EQ(conversation.thread(), (std::vector<int>{question, second_answer}));
    EXPECT_EQ(conversation.siblings(second_answer),
              (std::vector<int>{first_answer, second_answer}));

    // Back to the first branch: down to its most recent message.
    conversation.show_branch(first_answer);
    EXPECT_EQ(conversation.thread(), (std::vector<int>{question, first_answer, follow_up, reply}));

    // Edit the first question: a new root-level sibling.
    const int edited = conversation.add(-1, "user", "Hello");
    EXPECT_EQ(conversation.thread(), (std::vector<int>{edited}));
    EXPECT_EQ(conversation.siblings(edited), (std::vector<int>{question, edited}));
    conversation.show_branch(question);
    EXPECT_EQ(conversation.thread().back(), second_answer);  // its most recent answer
    EXPECT_EQ(conversation.find(reply)->text, "Fine.");
    EXPECT_EQ(conversation.find(99), nullptr);
}

}  // namespace
}  // namespace hearth::core
