// What the chat view shows is the conversation asked for, whatever was on screen before.
#include "ui/chat_view.h"

#include <gtest/gtest.h>

#include <QCoreApplication>

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

namespace hearth::ui {
namespace {

// Space the messages leave free goes below them: a question's box keeps its own height in a
// tall view, also next to an answer whose Thinking block is folded (it once took the space).
TEST(ChatView, MessagesKeepTheirHeightsInATallView) {
    core::Conversation conversation = one_question(1, "Tell me a story", "Once upon a time.");
    const int answer = conversation.thread().back();
    conversation.find(answer)->reasoning = QStringLiteral("A story, then.");
    ChatView view;
    view.resize(900, 900);
    view.show_conversation(conversation, -1);
    view.show();
    QCoreApplication::processEvents();
    const MessageWidget* question = view.message_widget(conversation.thread().front());
    ASSERT_NE(question, nullptr);
    EXPECT_LE(question->height(), question->sizeHint().height() + 2);
}

}  // namespace
}  // namespace hearth::ui
