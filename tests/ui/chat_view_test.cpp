// What the chat view shows is the conversation asked for, whatever was on screen before.
#include "ui/chat_view.h"

#include <gtest/gtest.h>

#include "ui/markdown_view.h"
#include "ui/message_widget.h"

namespace hearth::ui {
namespace {

core::Conversation one_question(int id, const QString& question, const QString& answer) {
    core::Conversation conversation(id, question);
    const int asked = conversation.add(-1, QStringLiteral("user"), question);
    conversation.add(asked, QStringLiteral("assistant"), answer);
    return conversation;
}

QStringList shown(const ChatView& view, const core::Conversation& conversation) {
    QStringList texts;
    for (const int id : conversation.thread()) {
        const MessageWidget* widget = view.message_widget(id);
        texts << (widget ? widget->view()->text() : QStringLiteral("(none)"));
    }
    return texts;
}

// Message ids start at 1 in every conversation: two one-question chats have the same ids, and
// switching between them must still show the other one's words.
TEST(ChatView, SwitchingConversationsShowsTheSelectedOneInEveryOrder) {
    const core::Conversation first = one_question(1, "Where is Lily?", "In the park.");
    const core::Conversation second = one_question(2, "What did Tom eat?", "An apple.");
    const core::Conversation third = one_question(7, "Who won?", "Nobody.");
    ASSERT_EQ(first.thread(), second.thread());
    ChatView view;
    const core::Conversation* order[] = {&first, &second, &first, &third, &second, &third, &first};
    for (const auto* conversation : order) {
        view.show_conversation(*conversation, -1);
        const QStringList expected{conversation->find(conversation->thread()[0])->text,
                                   conversation->find(conversation->thread()[1])->text};
        EXPECT_EQ(shown(view, *conversation), expected);
    }
}

}  // namespace
}  // namespace hearth::ui
