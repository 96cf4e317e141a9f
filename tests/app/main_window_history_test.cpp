// The window's conversations with a real history file: what was said survives a restart, can be
// searched, deleted (with undo), exported and imported, and clicking a conversation shows it.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include "app/core/history_json.h"
#include "tests/support/main_window_fixture.h"

namespace hearth {
namespace {

using test::MainWindowHistoryTest;
using test::MainWindowTest;
using test::shown_messages;
using test::Texts;

// Clicks the rows of `window`'s conversation list in every order there is (each permutation's
// rows one after another); after every click the view shows exactly the texts `expected` holds
// for the title the clicked row shows.
void expect_every_order_shows_the_clicked_one(ui::MainWindow& window,
                                              const std::map<std::string, Texts>& expected) {
    auto* list = window.findChild<QListWidget*>(QStringLiteral("conversations"));
    ASSERT_EQ(list->count(), static_cast<int>(expected.size()));
    std::vector<int> rows(static_cast<size_t>(list->count()));
    std::iota(rows.begin(), rows.end(), 0);
    do {
        for (const int row : rows) {
            QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                              list->visualItemRect(list->item(row)).center());
            QCoreApplication::processEvents();
            const std::string title = list->item(row)->text().toStdString();
            ASSERT_EQ(expected.count(title), 1u) << title;
            ASSERT_EQ(shown_messages(window), expected.at(title))
                << "clicked " << title << " in the order " << testing::PrintToString(rows);
        }
    } while (std::next_permutation(rows.begin(), rows.end()));
}

// A one-question conversation in the export format, written to `path`.
void write_conversation(const std::filesystem::path& path, const QString& title,
                        const QString& question, const QString& answer) {
    core::Conversation conversation(0, title);
    conversation.add(conversation.add(-1, QStringLiteral("user"), question),
                     QStringLiteral("assistant"), answer);
    const QByteArray json = core::conversation_to_json(conversation);
    QFile file(QString::fromStdString(path.string()));
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    ASSERT_EQ(file.write(json), json.size());
}

// Message ids restart at 1 in every conversation: two one-question chats made in one session
// have the same ids, and clicking between them must show each one's own words.
TEST_F(MainWindowTest, SwitchingBetweenConversationsShowsTheSelectedOne) {
    ASSERT_TRUE(load(bundled()));
    const QString questions[] = {"Once upon a time", "Lily and Tom went to the park."};
    std::map<QString, QString> answers;
    for (const auto& question : questions) {
        m_window.newConversation();
        use_test_settings();
        type_and_send(question);
        ASSERT_TRUE(wait_finished());
        answers[question] = last_answer();
    }
    auto* list = child<QListWidget>("conversations");
    ASSERT_GE(list->count(), 2);
    for (const int row : {1, 0, 1, 1, 0}) {
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualItemRect(list->item(row)).center());
        QCoreApplication::processEvents();
        const auto* conversation = m_window.current_conversation();
        const auto thread = conversation->thread();
        ASSERT_EQ(thread.size(), 2u);
        const QString question = conversation->find(thread[0])->text;
        EXPECT_EQ(widget_for(thread[0])->view()->text(), question);
        EXPECT_EQ(widget_for(thread[1])->view()->text(), answers[question]) << row;
    }
}

TEST_F(MainWindowHistoryTest, ConversationsSurviveARestartAndCanBeSearched) {
    core::HistoryStore history(database());
    ASSERT_NO_FATAL_FAILURE(answer_once_with(history));
    const QString answer = last_answer();
    const int conversation_id = m_window.current_conversation()->id();
    ASSERT_TRUE(history.available()) << history.problem().toStdString();

    core::HistoryStore reopened(database());
    ui::MainWindow restarted;
    restarted.set_history(&reopened);
    auto* restored = restarted.current_conversation();
    ASSERT_NE(restored, nullptr);
    EXPECT_EQ(restored->id(), conversation_id);
    EXPECT_EQ(restored->title(), "Once upon a time");
    const auto thread = restored->thread();
    ASSERT_EQ(thread.size(), 2u);
    EXPECT_EQ(restored->find(thread[1])->text, answer);
    EXPECT_TRUE(restored->find(thread[1])->finished);
    EXPECT_EQ(restored->find(thread[1])->generation->stats.generated_tokens, 60);
    EXPECT_EQ(restored->find(thread[1])->generation->seed, 7u);
    EXPECT_FALSE(restored->find(thread[1])->generation->model_sha256.isEmpty());

    // Search by a word of the answer, then open the hit.
    const QString word =
        answer.split(' ', Qt::SkipEmptyParts).value(3).remove(QRegularExpression("\\W"));
    restarted.newConversation();
    restarted.search(word.left(3));
    auto* results = restarted.findChild<QListWidget*>("searchResults");
    ASSERT_TRUE(results->isVisible() || !results->isHidden());
    ASSERT_GE(results->count(), 1);
    EXPECT_TRUE(results->item(0)->text().contains("»")) << results->item(0)->text().toStdString();
    // Clicking the hit opens the conversation at that message; "No matches" does nothing.
    QTest::mouseClick(results->viewport(), Qt::LeftButton, {},
                      results->visualItemRect(results->item(0)).center());
    EXPECT_EQ(restarted.current_conversation()->id(), conversation_id);
    restarted.search("zzzzqqqq");
    ASSERT_EQ(results->count(), 1);
    QTest::mouseClick(results->viewport(), Qt::LeftButton, {},
                      results->visualItemRect(results->item(0)).center());
    restarted.openSearchHit(conversation_id, thread[1]);
    EXPECT_EQ(restarted.current_conversation()->id(), conversation_id);
}

TEST_F(MainWindowHistoryTest, DeleteCanBeUndoneAndExportImportRoundTrips) {
    core::HistoryStore history(database());
    ASSERT_NO_FATAL_FAILURE(answer_once_with(history));
    const int id = m_window.current_conversation()->id();
    const auto exported = m_directory.path() / "chat.json";
    ASSERT_TRUE(m_window.exportConversation(QString::fromStdString(exported.string())));
    ASSERT_TRUE(m_window.exportConversation(
        QString::fromStdString((m_directory.path() / "chat.md").string())));
    const auto json = test::read_bytes(exported);

    // Renaming in the list (F2 / double-click edits the item) reaches the history.
    auto* list = child<QListWidget>("conversations");
    list->item(0)->setText("Renamed story");
    EXPECT_EQ(m_window.current_conversation()->title(), "Renamed story");
    EXPECT_EQ(history.conversations().front().title, "Renamed story");

    m_window.deleteConversation();
    EXPECT_NE(m_window.current_conversation()->id(), id);
    for (const auto& entry : history.conversations()) EXPECT_NE(entry.id, id);
    m_window.undoDelete();
    EXPECT_EQ(m_window.current_conversation()->id(), id);
    ASSERT_EQ(history.conversations().size(), 1u);  // the empty chat made meanwhile is not kept
    EXPECT_EQ(history.conversations().front().id, id);

    ASSERT_TRUE(m_window.importConversation(QString::fromStdString(exported.string())));
    EXPECT_NE(m_window.current_conversation()->id(), id);
    EXPECT_EQ(core::conversation_to_json(*m_window.current_conversation()),
              QByteArray(reinterpret_cast<const char*>(json.data()),
                         static_cast<qsizetype>(json.size())));
    m_window.deleteConversation();
    m_window.purge_deleted();
    EXPECT_EQ(history.conversations().size(), 1u);
}

// Message ids restart at 1 in every conversation, so one-question chats all have the same ids:
// made in one session, imported, or read back after a restart, clicking from any one to any
// other always shows the clicked one's own question and answer.
TEST_F(MainWindowHistoryTest, EveryConversationClickedShowsItsOwnMessagesInEveryOrder) {
    core::HistoryStore history(database());
    m_window.set_history(&history);
    ASSERT_TRUE(load(bundled()));
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    std::map<std::string, Texts> expected;  // by the title the list shows
    for (const std::string question :
         {"Once upon a time", "Lily and Tom went to the park.", "The cat sat on the mat."}) {
        if (!m_window.current_conversation()->messages().empty()) m_window.newConversation();
        use_test_settings();
        type_and_send(QString::fromStdString(question));
        ASSERT_TRUE(wait_finished());
        expected[question] = {question, finished.back()[1].value<GenerationResult>().text};
    }
    const auto imported = m_directory.path() / "imported.json";
    write_conversation(imported, "An imported story", "Where did the dog go?", "To the river.");
    ASSERT_TRUE(m_window.importConversation(QString::fromStdString(imported.string())));
    expected["An imported story"] = {"Where did the dog go?", "To the river."};
    ASSERT_NO_FATAL_FAILURE(expect_every_order_shows_the_clicked_one(m_window, expected));

    // After a restart: the same history file read by a new window, then one more import there.
    core::HistoryStore reopened(database());
    ui::MainWindow restarted;
    restarted.set_history(&reopened);
    restarted.show();
    ASSERT_NO_FATAL_FAILURE(expect_every_order_shows_the_clicked_one(restarted, expected));
    const auto second = m_directory.path() / "second.json";
    write_conversation(second, "A second import", "Who ate the cake?", "Tom did.");
    ASSERT_TRUE(restarted.importConversation(QString::fromStdString(second.string())));
    expected["A second import"] = {"Who ate the cake?", "Tom did."};
    ASSERT_NO_FATAL_FAILURE(expect_every_order_shows_the_clicked_one(restarted, expected));
}

// The titles the conversation list shows, top to bottom.
QStringList listed_titles(QListWidget* list) {
    QStringList titles;
    for (int row = 0; row < list->count(); ++row) titles.append(list->item(row)->text());
    return titles;
}

// Pressing New chat again, or in a chat with nothing said yet, reuses the empty chat instead of
// listing another "New chat".
TEST_F(MainWindowHistoryTest, NewChatDoesNotPileUpEmptyChats) {
    core::HistoryStore history(database());
    m_window.set_history(&history);
    auto* list = child<QListWidget>("conversations");
    auto* new_chat = child<QPushButton>("newChat");
    ASSERT_EQ(listed_titles(list), QStringList{"New chat"});
    for (int i = 0; i < 3; ++i) QTest::mouseClick(new_chat, Qt::LeftButton);
    EXPECT_EQ(listed_titles(list), QStringList{"New chat"});

    const auto story = m_directory.path() / "story.json";
    write_conversation(story, "A story", "Where did the dog go?", "To the river.");
    ASSERT_TRUE(m_window.importConversation(QString::fromStdString(story.string())));
    EXPECT_EQ(listed_titles(list), (QStringList{"A story", "New chat"}));
    // From a chat with messages, New chat goes to the empty one, brought to the top.
    QTest::mouseClick(new_chat, Qt::LeftButton);
    EXPECT_EQ(listed_titles(list), (QStringList{"New chat", "A story"}));
    EXPECT_TRUE(m_window.current_conversation()->messages().empty());
    EXPECT_EQ(list->currentRow(), 0);
    QTest::mouseClick(new_chat, Qt::LeftButton);
    EXPECT_EQ(listed_titles(list), (QStringList{"New chat", "A story"}));
}

// An undeleted chat goes back where it was in the list, selected.
TEST_F(MainWindowHistoryTest, AnUndeletedChatReturnsToItsPlace) {
    core::HistoryStore history(database());
    m_window.set_history(&history);
    for (const char* title : {"First", "Second", "Third"}) {
        const auto file = m_directory.path() / (std::string(title) + ".json");
        write_conversation(file, title, "A question", "An answer");
        ASSERT_TRUE(m_window.importConversation(QString::fromStdString(file.string())));
    }
    auto* list = child<QListWidget>("conversations");
    const QStringList before = listed_titles(list);
    ASSERT_EQ(before, (QStringList{"Third", "Second", "First", "New chat"}));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualItemRect(list->item(1)).center());
    ASSERT_EQ(m_window.current_conversation()->title(), "Second");
    QTest::mouseClick(child<QPushButton>("deleteConversation"), Qt::LeftButton);
    EXPECT_EQ(listed_titles(list), (QStringList{"Third", "First", "New chat"}));
    QTest::mouseClick(child<QPushButton>("undoDelete"), Qt::LeftButton);
    EXPECT_EQ(listed_titles(list), before);
    EXPECT_EQ(list->currentRow(), 1);
    EXPECT_EQ(m_window.current_conversation()->title(), "Second");
}

// Export through its dialog: the filter chosen names the format, and a name typed without an
// extension gets the filter's.
TEST_F(MainWindowHistoryTest, ExportWritesTheFormatTheChosenFilterNames) {
    const auto story = m_directory.path() / "story.json";
    write_conversation(story, "A story", "Where did the dog go?", "To the river.");
    ASSERT_TRUE(m_window.importConversation(QString::fromStdString(story.string())));
    const QString json =
        QString::fromUtf8(core::conversation_to_json(*m_window.current_conversation()));
    const QString markdown = core::conversation_to_markdown(*m_window.current_conversation());
    for (const auto& [filter, name, expected] :
         {std::tuple{"Markdown (*.md)", "as-markdown", markdown},
          std::tuple{"JSON (*.json)", "as-json", json}}) {
        const QString typed = QString::fromStdString((m_directory.path() / name).string());
        QTimer::singleShot(0, [&] {
            auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            ASSERT_NE(dialog, nullptr);
            dialog->selectNameFilter(QString::fromLatin1(filter));
            dialog->selectFile(typed);
            static_cast<QDialog*>(dialog)->accept();  // as the Save button does
        });
        QTest::mouseClick(child<QPushButton>("exportConversation"), Qt::LeftButton);
        const QString written =
            typed + (expected == markdown ? QStringLiteral(".md") : QStringLiteral(".json"));
        QFile file(written);
        ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << written.toStdString();
        EXPECT_EQ(QString::fromUtf8(file.readAll()), expected) << filter;
        EXPECT_FALSE(QFile::exists(typed));
    }
}

// A new chat starts with the system prompt the settings choose for new chats, not the open
// chat's, and the engine receives it.
TEST_F(MainWindowTest, ANewChatStartsWithTheSystemPromptTheSettingsChoose) {
    ASSERT_TRUE(load(bundled()));
    auto conversation = m_window.current_conversation()->settings();
    conversation.system_prompt = QStringLiteral("Speak in rhymes.");
    conversation.max_tokens = 4;
    m_window.apply_conversation_settings(conversation);
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    auto global = m_window.global_settings();
    core::save_preset(global.system_prompts, "Pirate", "Talk like a pirate.");
    global.new_chat_prompt = QStringLiteral("Pirate");
    m_window.apply_global_settings(global);

    QSignalSpy requests(&m_window, &ui::MainWindow::generateRequested);
    QTest::mouseClick(child<QPushButton>("newChat"), Qt::LeftButton);
    EXPECT_EQ(m_window.current_conversation()->settings().system_prompt, "Talk like a pirate.");
    type_and_send("Hello");
    ASSERT_TRUE(wait_finished());
    ASSERT_EQ(requests.size(), 1);
    auto request = requests[0][0].value<ChatRequest>();
    ASSERT_EQ(request.messages.size(), 2u);
    EXPECT_EQ(request.messages[0].role, "system");
    EXPECT_EQ(request.messages[0].content, "Talk like a pirate.");

    global.new_chat_prompt.clear();  // "No system prompt"
    m_window.apply_global_settings(global);
    QTest::mouseClick(child<QPushButton>("newChat"), Qt::LeftButton);
    EXPECT_EQ(m_window.current_conversation()->settings().system_prompt, "");
    type_and_send("Hello");
    ASSERT_TRUE(wait_finished());
    ASSERT_EQ(requests.size(), 2);
    request = requests[1][0].value<ChatRequest>();
    ASSERT_EQ(request.messages.size(), 1u);
    EXPECT_EQ(request.messages[0].role, "user");
}

}  // namespace
}  // namespace hearth
