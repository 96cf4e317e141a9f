// The window, the engine thread and the real bundled model, under the offscreen platform:
// what a user does, click by click.
#include "ui/main_window.h"

#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <algorithm>
#include <map>
#include <numeric>

#include "app/bundled_model.h"
#include "app/core/history_json.h"
#include "app/engine_controller.h"
#include "app/wiring.h"
#include "engine/format/gguf_file.h"
#include "engine/text/chat_prompt.h"
#include "tests/support/chat_window_test.h"
#include "tests/support/temp_files.h"
#include "tests/support/templated_model.h"
#include "ui/chat_view.h"
#include "ui/markdown_view.h"
#include "ui/message_widget.h"
#include "ui/performance_dashboard.h"
#include "ui/prose_view.h"

namespace hearth {
namespace {

class MainWindowTest : public test::ChatWindowTest {
protected:
    MainWindowTest() { use_test_settings(); }

    // Short, reproducible answers.
    void use_test_settings() {
        auto settings = m_window.current_conversation()->settings();
        settings.random_seed = false;
        settings.sampler.seed = 7;
        settings.max_tokens = 60;
        m_window.apply_conversation_settings(settings);
    }

    template <typename T>
    T* child(const char* name, QWidget* parent = nullptr) {
        auto* found = (parent ? parent : &m_window)->findChild<T*>(QString::fromLatin1(name));
        EXPECT_NE(found, nullptr) << name;
        return found;
    }

    // "Tell me a joke." asked in a new conversation with `settings`: the prompt's length as the
    // engine reports it.
    int answer_prompt_tokens(core::ConversationSettings settings) {
        QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
        m_window.newConversation();
        settings.max_tokens = 4;
        m_window.apply_conversation_settings(settings);
        type_and_send("Tell me a joke.");
        if (!wait_finished() || finished.isEmpty()) return -1;
        return finished.back()[1].value<GenerationResult>().stats.prompt_tokens;
    }

    // The same question's prompt built directly from the model's template.
    static int expected_prompt_tokens(const std::filesystem::path& model,
                                      const ChatRenderOptions& options) {
        const auto file = GgufFile::open(model);
        const auto tokenizer = make_tokenizer(*file);
        const auto chat = ChatTemplate::from_model(*file, tokenizer->vocabulary());
        return static_cast<int>(
            build_chat_prompt(chat, *tokenizer, {{"user", "Tell me a joke."}}, options)
                .tokens.size());
    }

    QString last_answer() {
        auto* conversation = m_window.current_conversation();
        return conversation->find(conversation->thread().back())->text;
    }

    // Applies a backend setting and waits for the engine to report the backend it now runs;
    // returns its name and the notice saying why it is not the one asked for, if any.
    std::pair<QString, QString> switch_backend(const QString& backend) {
        QSignalSpy backends(m_engine->worker(), &InferenceWorker::backendChanged);
        auto global = m_window.global_settings();
        global.backend = backend;
        m_window.apply_global_settings(global);
        EXPECT_TRUE(QTest::qWaitFor([&] { return !backends.isEmpty(); }, 30000));
        if (backends.isEmpty()) return {};
        QCoreApplication::processEvents();
        return {backends.back()[0].toString(), backends.back()[1].toString()};
    }

    // An answer that would run for minutes, under way: two chunks have arrived.
    void start_long_answer() {
        auto settings = m_window.current_conversation()->settings();
        settings.max_tokens = 100000;
        settings.context_length = 2048;
        settings.overflow = OverflowPolicy::RollingWindow;
        m_window.apply_conversation_settings(settings);
        QSignalSpy chunks(m_engine->worker(), &InferenceWorker::tokensReady);
        type_and_send("Once upon a time");
        ASSERT_TRUE(QTest::qWaitFor([&] { return chunks.size() >= 2; }, 10000));
    }
};

TEST_F(MainWindowTest, SendsAMessageAndStreamsTheAnswerInChunks) {
    ASSERT_TRUE(load(bundled()));
    EXPECT_TRUE(child<QLabel>("model")->text().contains("Llama"));
    QSignalSpy chunks(m_engine->worker(), &InferenceWorker::tokensReady);
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    QSignalSpy prefill(m_engine->worker(), &InferenceWorker::prefillProgress);
    type_and_send("Once upon a time");
    EXPECT_TRUE(m_window.generating());
    EXPECT_FALSE(child<QPushButton>("send")->isEnabled());
    EXPECT_TRUE(child<QPushButton>("stop")->isEnabled());
    ASSERT_TRUE(wait_finished());
    EXPECT_GE(chunks.size(), 2);
    ASSERT_GE(prefill.size(), 1);  // the prompt's progress, step by step
    EXPECT_EQ(prefill.back()[1].toInt(), prefill.back()[2].toInt());
    ASSERT_EQ(finished.size(), 1);
    const auto result = finished[0][1].value<GenerationResult>();
    EXPECT_EQ(result.stats.generated_tokens, 60);
    // The message on screen is exactly the streamed text, rendered.
    const auto thread = m_window.current_conversation()->thread();
    ASSERT_EQ(thread.size(), 2u);
    EXPECT_EQ(last_answer(), QString::fromStdString(result.text));
    auto* view = widget_for(thread.back())->view();
    EXPECT_EQ(view->text(), QString::fromStdString(result.text));
    EXPECT_FALSE(view->findChildren<ui::ProseView*>().isEmpty());
    EXPECT_TRUE(child<QLabel>("status")->text().contains("tok/s"));
    EXPECT_GT(child<QProgressBar>("contextMeter")->value(), 60);
    EXPECT_TRUE(child<QPushButton>("send")->isEnabled());
    EXPECT_EQ(child<QPlainTextEdit>("prompt")->toPlainText(), "");
    EXPECT_EQ(m_window.current_conversation()->title(), "Once upon a time");
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

// The backend chosen in settings runs the model (a Vulkan device: lavapipe here); when the device
// is lost midway through an answer, the answer goes on on the CPU and nothing is lost: the text
// is the CPU's own greedy answer, the user is told, and the next message runs on the CPU.
TEST_F(MainWindowTest, AGpuChosenInSettingsRunsAndALostGpuFallsBackToTheCpu) {
    auto settings = m_window.current_conversation()->settings();
    settings.sampler.temperature = 0.0f;
    m_window.apply_conversation_settings(settings);
    ASSERT_TRUE(load(bundled()));  // the default: automatic, so the CPU on a machine without GPU
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    const QString cpu_answer = last_answer();
    EXPECT_EQ(cpu_answer.size() > 20, true);

    const auto [name, notice] = switch_backend("vulkan:0");
    EXPECT_TRUE(name.startsWith("vulkan")) << name.toStdString();
    EXPECT_EQ(notice, "");  // the self-test passed
    EXPECT_TRUE(child<QLabel>("status")->text().contains("Running on vulkan"));

    m_window.newConversation();
    m_window.apply_conversation_settings(settings);
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    EXPECT_EQ(last_answer(), cpu_answer);  // the same greedy answer, chain-decoded on the device

    // Lost after the prompt and a chunk of the answer.
    QSignalSpy backends(m_engine->worker(), &InferenceWorker::backendChanged);
    QMetaObject::invokeMethod(m_engine->worker(), "injectDeviceLoss", Qt::BlockingQueuedConnection,
                              Q_ARG(int, 3));
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    m_window.newConversation();
    m_window.apply_conversation_settings(settings);
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    ASSERT_EQ(finished.size(), 1);
    const auto result = finished[0][1].value<GenerationResult>();
    ASSERT_FALSE(result.notices.empty());
    EXPECT_EQ(result.notices[0].kind, NoticeKind::GpuLost);
    EXPECT_TRUE(result.notices[0].resumed);
    EXPECT_NE(backends.back()[1].toString().indexOf("The GPU failed"), -1);
    EXPECT_EQ(result.stats.generated_tokens, 60);
    EXPECT_EQ(QString::fromStdString(result.text), cpu_answer);
    EXPECT_EQ(last_answer(), cpu_answer);
    EXPECT_TRUE(backends.back()[0].toString().startsWith("cpu"));
    EXPECT_TRUE(m_window.current_conversation()
                    ->find(m_window.current_conversation()->thread().back())
                    ->finished);

    type_and_send("The end");
    ASSERT_TRUE(wait_finished());
    EXPECT_EQ(m_window.current_conversation()->thread().size(), 4u);
}

// A cancelled load leaves the cancel flag set; changing the backend afterwards uploads the
// weights anyway (the cancel was for that load), and the loaded model keeps answering.
TEST_F(MainWindowTest, ABackendChangeAfterACancelledLoadStillRunsTheModel) {
    ASSERT_TRUE(load(bundled()));
    m_engine->cancelLoad();
    const auto [name, notice] = switch_backend("vulkan:0");
    EXPECT_TRUE(name.startsWith("vulkan")) << notice.toStdString();
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    EXPECT_FALSE(last_answer().isEmpty());
}

TEST_F(MainWindowTest, ShiftEnterStartsANewLineInsteadOfSending) {
    ASSERT_TRUE(load(bundled()));
    auto* prompt = child<QPlainTextEdit>("prompt");
    prompt->setFocus();
    QTest::keyClicks(prompt, "first");
    QTest::keyClick(prompt, Qt::Key_Return, Qt::ShiftModifier);
    QTest::keyClicks(prompt, "second");
    EXPECT_FALSE(m_window.generating());
    EXPECT_EQ(prompt->toPlainText(), "first\nsecond");
}

TEST_F(MainWindowTest, StopEndsTheAnswerAndMarksItUnfinished) {
    ASSERT_TRUE(load(bundled()));
    start_long_answer();
    QElapsedTimer clock;
    clock.start();
    QTest::keyClick(&m_window, Qt::Key_Escape);  // Esc stops
    ASSERT_TRUE(wait_finished(5000));
    EXPECT_LT(clock.elapsed(), 1000);
    const auto id = m_window.current_conversation()->thread().back();
    EXPECT_FALSE(m_window.current_conversation()->find(id)->finished);
    EXPECT_EQ(m_window.current_conversation()->find(id)->generation->stats.stop_reason,
              StopReason::Cancelled);
    EXPECT_EQ(child<QLabel>("messageNote", widget_for(id))->text(), "(stopped before the end)");
}

TEST_F(MainWindowTest, RegenerateAddsABranchAndTheOldAnswerStaysReachable) {
    ASSERT_TRUE(load(bundled()));
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    const QString first = last_answer();
    auto settings = m_window.current_conversation()->settings();
    settings.sampler.seed = 8;  // a different answer
    m_window.apply_conversation_settings(settings);
    const auto first_id = m_window.current_conversation()->thread().back();
    QSignalSpy requests(&m_window, &ui::MainWindow::generateRequested);
    QTest::mouseClick(child<QPushButton>("regenerate", widget_for(first_id)), Qt::LeftButton);
    ASSERT_TRUE(wait_finished());
    // Asked from the question alone: the answer it replaces is not shown to the model.
    ASSERT_EQ(requests.size(), 1);
    const auto request = requests.front().front().value<ChatRequest>();
    ASSERT_EQ(request.messages.size(), 1u);
    EXPECT_EQ(request.messages.front().content, "Once upon a time");
    // The engine received the question's prompt again, not the old answer after it: the same
    // prompt tokens, the cache reused up to the question at most, and a fresh answer.
    ASSERT_EQ(finished.size(), 2);
    const auto asked = finished[0][1].value<GenerationResult>().stats;
    const auto regenerated = finished[1][1].value<GenerationResult>().stats;
    EXPECT_EQ(regenerated.prompt_tokens, asked.prompt_tokens);
    EXPECT_LT(regenerated.cached_tokens, regenerated.prompt_tokens);
    const auto second_id = m_window.current_conversation()->thread().back();
    EXPECT_NE(second_id, first_id);
    EXPECT_NE(last_answer(), first);
    EXPECT_FALSE(last_answer().startsWith(first));
    EXPECT_EQ(child<QLabel>("branchPlace", widget_for(second_id))->text(), "2/2");
    QTest::mouseClick(child<QPushButton>("previousBranch", widget_for(second_id)), Qt::LeftButton);
    EXPECT_EQ(m_window.current_conversation()->thread().back(), first_id);
    EXPECT_EQ(widget_for(first_id)->view()->text(), first);
    EXPECT_EQ(child<QLabel>("branchPlace", widget_for(first_id))->text(), "1/2");
}

TEST_F(MainWindowTest, EditAndResendForksTheConversation) {
    ASSERT_TRUE(load(bundled()));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    auto* conversation = m_window.current_conversation();
    const auto old_thread = conversation->thread();
    auto* question = widget_for(old_thread.front());
    QTest::mouseClick(child<QPushButton>("editMessage", question), Qt::LeftButton);
    auto* editor = child<QPlainTextEdit>("messageEditor", question);
    EXPECT_EQ(editor->toPlainText(), "Once upon a time");
    editor->setPlainText("Lily and Tom went to the park.");
    QTest::mouseClick(child<QPushButton>("sendEdit", question), Qt::LeftButton);
    ASSERT_TRUE(wait_finished());
    const auto new_thread = conversation->thread();
    ASSERT_EQ(new_thread.size(), 2u);
    EXPECT_NE(new_thread.front(), old_thread.front());
    EXPECT_EQ(conversation->find(new_thread.front())->text, "Lily and Tom went to the park.");
    EXPECT_EQ(conversation->siblings(new_thread.front()),
              (std::vector<int>{old_thread.front(), new_thread.front()}));
    // The old branch, question and answer, is one click away.
    QTest::mouseClick(child<QPushButton>("previousBranch", widget_for(new_thread.front())),
                      Qt::LeftButton);
    EXPECT_EQ(conversation->thread(), old_thread);
}

TEST_F(MainWindowTest, ACorruptModelShowsTheEngineErrorAndTheAppKeepsWorking) {
    ASSERT_TRUE(load(bundled()));
    const test::TempDirectory directory;
    auto bytes = test::read_bytes(bundled_model_path());
    bytes.resize(4000);
    const auto broken = directory.write("broken.gguf", bytes);
    EXPECT_FALSE(load(QString::fromStdString(broken.string())));
    EXPECT_TRUE(child<QLabel>("status")->text().contains("truncated or corrupt file"));
    // The previous model is still loaded and answers.
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    EXPECT_FALSE(last_answer().isEmpty());
}

// A model whose template reads enable_thinking turns the settings' Thinking choice on, and a
// conversation's choice reaches the prompt the engine runs: off adds Qwen3's empty think block.
TEST_F(MainWindowTest, TheThinkingChoiceFollowsTheModelAndReachesThePrompt) {
    ASSERT_TRUE(load(bundled()));
    EXPECT_FALSE(m_window.template_choices().thinking);
    const test::TempDirectory directory;
    const auto qwen3 =
        test::model_with_template(directory, "stories260K.gguf", test::fixture_template("qwen3"));
    ASSERT_TRUE(load(QString::fromStdString(qwen3.string())));
    EXPECT_TRUE(m_window.template_choices().thinking);
    EXPECT_FALSE(m_window.template_choices().reasoning_effort);

    for (const auto thinking : {std::optional<bool>(), std::optional<bool>(false)}) {
        auto settings = m_window.current_conversation()->settings();
        settings.enable_thinking = thinking;
        EXPECT_EQ(answer_prompt_tokens(settings),
                  expected_prompt_tokens(qwen3, {.enable_thinking = thinking}))
            << thinking.has_value();
    }
}

// gpt-oss's reasoning_effort, chosen in a conversation's settings, reaches the prompt.
TEST_F(MainWindowTest, TheReasoningEffortChoiceReachesThePrompt) {
    const test::TempDirectory directory;
    const auto model = test::model_with_template(
        directory, "stories260K.gguf",
        "{% if reasoning_effort is not defined %}{% set reasoning_effort = 'medium' %}{% endif %}"
        "Effort {{ reasoning_effort }}. {% for m in messages %}{{ m.content }}{% endfor %}");
    ASSERT_TRUE(load(QString::fromStdString(model.string())));
    EXPECT_TRUE(m_window.template_choices().reasoning_effort);
    EXPECT_FALSE(m_window.template_choices().thinking);
    const int medium = expected_prompt_tokens(model, {});
    const int low = expected_prompt_tokens(model, {.reasoning_effort = "low"});
    ASSERT_NE(medium, low);  // else the check below could not fail
    auto settings = m_window.current_conversation()->settings();
    EXPECT_EQ(answer_prompt_tokens(settings), medium);
    settings.reasoning_effort = "low";
    EXPECT_EQ(answer_prompt_tokens(settings), low);
}

TEST_F(MainWindowTest, QuittingMidAnswerStopsWithinASecond) {
    ASSERT_TRUE(load(bundled()));
    start_long_answer();
    QElapsedTimer clock;
    clock.start();
    m_engine.reset();  // what closing the window does
    EXPECT_LT(clock.elapsed(), 1000);
}

}  // namespace
}  // namespace hearth

namespace hearth {
namespace {

// The window with a real history file: what was said survives a restart, can be searched,
// deleted (with undo), exported and imported.
class MainWindowHistoryTest : public MainWindowTest {
protected:
    QString database() const {
        return QString::fromStdString((m_directory.path() / "history.sqlite").string());
    }
    // The window keeping its conversations in `history`, one answer already given.
    void answer_once_with(core::HistoryStore& history) {
        m_window.set_history(&history);
        use_test_settings();
        ASSERT_TRUE(load(bundled()));
        type_and_send("Once upon a time");
        ASSERT_TRUE(wait_finished());
    }
    test::TempDirectory m_directory;
};

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

}  // namespace
}  // namespace hearth

namespace hearth {
namespace {

TEST_F(MainWindowHistoryTest, TheBenchmarkButtonStoresAResultWithTheMachineAndBuild) {
    core::HistoryStore history(database());
    m_window.set_history(&history);
    ASSERT_TRUE(load(bundled()));
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::benchmarkFinished);
    QTest::mouseClick(child<QPushButton>("runBenchmark", m_window.dashboard()), Qt::LeftButton);
    ASSERT_TRUE(finished.wait(30000));
    QCoreApplication::processEvents();
    const auto stored = history.benchmarks();
    ASSERT_EQ(stored.size(), 1u);
    EXPECT_GT(stored[0].prompt_tokens_per_second, 0);
    EXPECT_GT(stored[0].generation_tokens_per_second, 0);
    EXPECT_TRUE(stored[0].machine.contains("threads"));
    EXPECT_TRUE(stored[0].build.startsWith("Hearth "));
    EXPECT_EQ(stored[0].model_file, bundled());
    EXPECT_EQ(child<QTableWidget>("benchmarks", m_window.dashboard())->rowCount(), 1);
}

}  // namespace
}  // namespace hearth

namespace hearth {
namespace {

// Every control can be found by a screen reader and reached from the keyboard.
TEST_F(MainWindowTest, ControlsHaveAccessibleNamesAndTakeKeyboardFocus) {
    ASSERT_TRUE(load(bundled()));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    int controls = 0;
    for (auto* widget : m_window.findChildren<QWidget*>()) {
        const bool control = qobject_cast<QAbstractButton*>(widget) != nullptr ||
                             qobject_cast<QPlainTextEdit*>(widget) != nullptr ||
                             qobject_cast<QLineEdit*>(widget) != nullptr ||
                             qobject_cast<QListWidget*>(widget) != nullptr;
        // Qt's own dock title buttons ("qt_…") are covered by the Performance toggle.
        if (!control || widget->objectName().isEmpty() || widget->objectName().startsWith("qt_")) {
            continue;
        }
        ++controls;
        const auto* button = qobject_cast<QAbstractButton*>(widget);
        EXPECT_TRUE(!widget->accessibleName().isEmpty() || (button && !button->text().isEmpty()))
            << widget->objectName().toStdString();
        EXPECT_NE(widget->focusPolicy() & Qt::TabFocus, 0) << widget->objectName().toStdString();
    }
    EXPECT_GT(controls, 15);
}

}  // namespace
}  // namespace hearth

namespace hearth {
namespace {

using Texts = std::vector<std::string>;

// What the chat view shows, top to bottom: every message's text as its view holds it.
Texts shown_messages(const ui::MainWindow& window) {
    Texts texts;
    const QLayout* layout = window.chat_view()->widget()->layout();
    for (int i = 0; i < layout->count(); ++i) {
        if (const auto* message = qobject_cast<ui::MessageWidget*>(layout->itemAt(i)->widget()))
            texts.push_back(message->view()->text().toStdString());
    }
    return texts;
}

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

// An answer streaming in one conversation shows in no other: clicked away from while it
// streams, then back, each conversation shows its own messages, and the answer whole at the end.
TEST_F(MainWindowTest, AnAnswerStreamingInOneConversationShowsInNoOther) {
    ASSERT_TRUE(load(bundled()));
    type_and_send("Lily and Tom went to the park.");
    ASSERT_TRUE(wait_finished());
    const Texts other = shown_messages(m_window);
    m_window.newConversation();
    QSignalSpy chunks(m_engine->worker(), &InferenceWorker::tokensReady);
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    ASSERT_NO_FATAL_FAILURE(start_long_answer());  // in the new conversation, the list's first
    auto* list = child<QListWidget>("conversations");
    for (const int row : {1, 0, 1, 0}) {
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualItemRect(list->item(row)).center());
        const auto arrived = chunks.size();
        ASSERT_TRUE(QTest::qWaitFor([&] { return chunks.size() >= arrived + 3; }, 10000));
        if (row == 1) EXPECT_EQ(shown_messages(m_window), other);
    }
    QTest::keyClick(&m_window, Qt::Key_Escape);
    ASSERT_TRUE(wait_finished());
    ASSERT_EQ(finished.size(), 1);
    EXPECT_EQ(shown_messages(m_window),
              (Texts{"Once upon a time", finished[0][1].value<GenerationResult>().text}));
}

}  // namespace
}  // namespace hearth

namespace hearth {
namespace {

// Regenerate asks again from the question: the engine receives exactly the conversation up to
// it (the first answer's prompt, every token of it in the cache when the new answer starts and
// none of the old answer's), and the new version is what a conversation that never had the old
// answer gets from the same seed, not a continuation of the old one.
class MainWindowRegenerateTest : public MainWindowTest {
protected:
    struct Answer {
        GenerationStats stats;
        std::string text;
    };

    // `turns` asked in a new conversation with `settings`, every answer from seed 7 but the
    // last, from `last_seed`: the last answer as the engine reported it.
    Answer ask(const QStringList& turns, core::ConversationSettings settings, uint64_t last_seed) {
        QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
        m_window.newConversation();
        settings.random_seed = false;
        for (int i = 0; i < turns.size(); ++i) {
            settings.sampler.seed = i + 1 == turns.size() ? last_seed : 7;
            m_window.apply_conversation_settings(settings);
            type_and_send(turns[i]);
            EXPECT_TRUE(wait_finished());
        }
        EXPECT_EQ(finished.size(), turns.size());
        if (finished.size() != turns.size()) return {};
        const auto result = finished.back()[1].value<GenerationResult>();
        return {result.stats, result.text};
    }

    // Regenerates the last answer of `turns` (asked with `settings`) from seed 8, clicking its
    // Regenerate button, and checks what the engine received and what the window shows. Returns
    // the first version's answer.
    Answer expect_regenerate_asks_from_the_question(const core::ConversationSettings& settings,
                                                    const QStringList& turns) {
        const Answer asked = ask(turns, settings, 7);
        auto changed = settings;
        changed.random_seed = false;
        changed.sampler.seed = 8;
        m_window.apply_conversation_settings(changed);
        QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
        const int answer = m_window.current_conversation()->thread().back();
        QTest::mouseClick(child<QPushButton>("regenerate", widget_for(answer)), Qt::LeftButton);
        EXPECT_TRUE(wait_finished());
        EXPECT_EQ(finished.size(), 1);
        if (finished.size() != 1) return asked;
        const auto regenerated = finished[0][1].value<GenerationResult>();
        const GenerationStats& stats = regenerated.stats;
        EXPECT_EQ(stats.prompt_tokens, asked.stats.prompt_tokens);
        // The cache is reused up to the question's end at most (its last token always runs
        // again), and holds every token of the question when the answer starts.
        EXPECT_LT(stats.cached_tokens, asked.stats.prompt_tokens);
        EXPECT_EQ(stats.cached_tokens + stats.prefilled_tokens, stats.prompt_tokens);
        EXPECT_EQ(shown_messages(m_window).back(), regenerated.text);
        EXPECT_FALSE(regenerated.text.starts_with(asked.text)) << regenerated.text;
        EXPECT_EQ(regenerated.text, ask(turns, settings, 8).text);  // a fresh conversation's
        return asked;
    }
};

TEST_F(MainWindowRegenerateTest, OfAFirstAnswer) {
    ASSERT_TRUE(load(bundled()));
    auto settings = m_window.current_conversation()->settings();
    settings.max_tokens = 40;
    expect_regenerate_asks_from_the_question(settings, {"Once upon a time"});
}

// A chat template's prompt (ChatML's turns around the messages), two turns deep: the second
// answer is asked again after the first question, the first answer and the second question.
TEST_F(MainWindowRegenerateTest, OfALaterAnswerThroughAChatTemplate) {
    const test::TempDirectory directory;
    const auto model =
        test::model_with_template(directory, "stories260K.gguf", test::fixture_template("chatml"));
    ASSERT_TRUE(load(QString::fromStdString(model.string())));
    auto settings = m_window.current_conversation()->settings();
    settings.max_tokens = 40;
    expect_regenerate_asks_from_the_question(settings, {"Tell me a story.", "Make it longer."});
}

// An answer that outgrew the context: the rolling window took most of the question out of the
// cache to go on. The question alone fits again, so the new version reads all of it.
TEST_F(MainWindowRegenerateTest, OfAnAnswerThatOutgrewTheContext) {
    ASSERT_TRUE(load(bundled()));
    auto settings = m_window.current_conversation()->settings();
    settings.context_length = 128;
    settings.max_tokens = 200;
    settings.overflow = OverflowPolicy::RollingWindow;
    const Answer first = expect_regenerate_asks_from_the_question(
        settings, {"Once upon a time, there was a little girl named Lily. She liked to play."});
    EXPECT_GT(first.stats.dropped_tokens, first.stats.prompt_tokens / 2);
}

}  // namespace
}  // namespace hearth
