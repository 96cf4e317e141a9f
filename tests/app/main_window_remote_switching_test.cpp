// The window with a remote engine answering, over real sockets on 127.0.0.1: hearth-server's
// parts in this process (LocalApiServer). A conversation moves between the bundled local model
// and the remote one without losing anything; the remote one is chosen with its key or in the
// Models dialog, comes back at the next start, or gives way to the local model with the reason.
#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTimer>

#include <optional>
#include <vector>

#include "app/core/api_key_store.h"
#include "app/core/history_json.h"
#include "tests/support/local_api_server.h"
#include "tests/support/main_window_remote_fixture.h"
#include "tests/support/template_fixtures.h"
#include "tests/support/templated_model.h"
#include "ui/connections_panel.h"
#include "ui/message_widget.h"
#include "ui/model_picker.h"

namespace hearth {
namespace {

using test::kServedModelId;
using test::MainWindowRemoteTest;

// Local, remote, regenerate (a branch), edit (a branch), local again: every message and branch
// is still there, each answer's record names what made it, and so does the history file after a
// reload.
TEST_F(MainWindowRemoteTest, AConversationMovesBetweenLocalAndRemoteWithoutLosingAnything) {
    test::LocalApiServer server;
    core::HistoryStore history(database());
    m_window.set_history(&history);
    use_short_answers();  // the whole conversation must fit the server's small context
    ASSERT_TRUE(load(bundled()));
    type_and_send("Once upon a time");  // answered by the bundled model, locally
    ASSERT_TRUE(wait_finished());
    auto* conversation = m_window.current_conversation();
    const int question = conversation->thread().front();
    const int local_answer = last_message();
    expect_local(message(local_answer));

    ASSERT_TRUE(choose_remote(server.url()));
    EXPECT_EQ(child<QLabel>("model")->text(), "stories260K · on gpu-box");
    EXPECT_TRUE(m_window.remote().has_value());
    EXPECT_TRUE(
        child<QLabel>("modelPurpose")->text().contains(QString::fromStdString(server.url())));
    auto settings = conversation->settings();
    settings.sampler.repeat_penalty = 1.1f;  // sent as an extension; its window is not sent
    m_window.apply_conversation_settings(settings);
    QSignalSpy requests(&m_window, &ui::MainWindow::generateRequested);
    type_and_send("Lily and Tom went to the park.");
    EXPECT_EQ(status(), "Asking stories260K · on gpu-box…");
    ASSERT_TRUE(wait_finished());
    const int remote_answer = last_message();
    expect_remote(message(remote_answer), server.url());
    EXPECT_FALSE(message(remote_answer).text.isEmpty());
    EXPECT_TRUE(message(remote_answer).finished);
    // The whole conversation went to the server: the local exchange and the new question.
    ASSERT_EQ(requests.size(), 1);
    EXPECT_EQ(requests[0][0].value<ChatRequest>().messages.size(), 3u);
    // Settings the API cannot carry are said with the answer, not dropped.
    EXPECT_TRUE(
        status().contains("extensions that some servers ignore: top_k, min_p, "
                          "repeat_penalty"))
        << status().toStdString();
    EXPECT_TRUE(status().contains("Not sent to the remote engine")) << status().toStdString();
    EXPECT_TRUE(status().contains("penalty window")) << status().toStdString();
    // The answer says where it came from; the dashboard has the server's usage.
    EXPECT_TRUE(child<QLabel>("answerFigures", widget_for(remote_answer))
                    ->text()
                    .startsWith("stories260K · on gpu-box · "));
    EXPECT_GT(message(remote_answer).generation->stats.prompt_tokens, 0);
    EXPECT_FALSE(message(remote_answer).generation->stats.token_times_ns.empty());

    const auto regenerated = click_and_wait(remote_answer, "regenerate");
    expect_remote(message(regenerated.message), server.url());
    EXPECT_EQ(conversation->siblings(regenerated.message),
              (std::vector<int>{remote_answer, regenerated.message}));

    auto* first = widget_for(question);
    QTest::mouseClick(child<QPushButton>("editMessage", first), Qt::LeftButton);
    child<QPlainTextEdit>("messageEditor", first)->setPlainText("Once upon a time, a cat");
    QTest::mouseClick(child<QPushButton>("sendEdit", first), Qt::LeftButton);
    ASSERT_TRUE(wait_finished());
    const auto edited_thread = conversation->thread();
    ASSERT_EQ(edited_thread.size(), 2u);
    EXPECT_EQ(conversation->siblings(edited_thread.front()),
              (std::vector<int>{question, edited_thread.front()}));
    expect_remote(message(edited_thread.back()), server.url());

    // Back to the local model: it stayed loaded, so it answers again at once.
    QSignalSpy loaded(m_engine->worker(), &InferenceWorker::modelLoaded);
    m_window.load_model(bundled());
    // Not loaded.wait(): the signal can come from the engine thread before wait() listens.
    ASSERT_TRUE(QTest::qWaitFor([&] { return !loaded.isEmpty(); }, 20000));
    QCoreApplication::processEvents();
    EXPECT_FALSE(m_window.remote().has_value());
    EXPECT_FALSE(child<QLabel>("model")->text().contains("gpu-box"));
    type_and_send("And then?");
    ASSERT_TRUE(wait_finished());
    expect_local(message(last_message()));

    // Everything, every branch, with what made each answer.
    EXPECT_EQ(conversation->messages().size(), 9u);
    int remote = 0, local = 0;
    for (const auto& stored : conversation->messages()) {
        if (!stored.generation) continue;
        (stored.generation->remote() ? remote : local) += 1;
    }
    EXPECT_EQ(remote, 3);
    EXPECT_EQ(local, 2);
    core::HistoryStore reopened(database());
    const auto reloaded = reopened.load(conversation->id());
    ASSERT_TRUE(reloaded);
    EXPECT_EQ(core::conversation_to_json(*reloaded), core::conversation_to_json(*conversation));
}

// The connection's key is read where the app keeps keys, with the choice, and sent: the server
// that wants it answers, and without it says so.
TEST_F(MainWindowRemoteTest, TheConnectionsApiKeyIsReadAndSent) {
    test::LocalApiServer server("right-key");
    const core::ApiKeyStore keys = core::ApiKeyStore::for_app();
    ASSERT_TRUE(keys.store("gpu-box", "right-key").ok);
    use_short_answers();
    ASSERT_TRUE(choose_remote(server.url()));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    EXPECT_TRUE(message(last_message()).finished) << status().toStdString();
    EXPECT_FALSE(message(last_message()).text.isEmpty());
    ASSERT_TRUE(keys.remove("gpu-box").ok);
    ASSERT_TRUE(choose_remote(server.url()));
    type_and_send("And then?");
    ASSERT_TRUE(wait_finished());
    EXPECT_TRUE(status().contains("401: the API key is missing or wrong"))
        << status().toStdString();
}

// The Models dialog's Connections tab: a model of a saved connection, listed and chosen there,
// answers the next message.
TEST_F(MainWindowRemoteTest, AModelChosenInThePickersConnectionsAnswers) {
    test::LocalApiServer server;
    auto global = m_window.global_settings();
    global.connections = {{.name = "gpu-box", .base_url = QString::fromStdString(server.url())}};
    m_window.apply_global_settings(global);
    use_short_answers();
    bool seen = false;
    QTimer::singleShot(0, &m_window, [&] {
        auto* picker = qobject_cast<ui::ModelPicker*>(QApplication::activeModalWidget());
        ASSERT_NE(picker, nullptr);
        seen = true;
        auto close = qScopeGuard([picker] { picker->reject(); });
        picker->findChild<QTabWidget*>("modelSources")
            ->setCurrentWidget(&picker->connections_panel());
        auto* models = picker->findChild<QListWidget*>("remoteModels");
        picker->findChild<QPushButton*>("refreshModels")->click();  // GET /v1/models
        ASSERT_TRUE(QTest::qWaitFor([&] { return models->count() > 0; }, 20000));
        models->setCurrentRow(0);
        ASSERT_TRUE(picker->selected_remote());
        close.dismiss();  // accepted instead
        picker->findChild<QPushButton*>("loadModel")->click();
    });
    m_window.open_model_picker();
    ASSERT_TRUE(seen);
    ASSERT_TRUE(QTest::qWaitFor([&] { return m_window.remote().has_value(); }, 20000));
    EXPECT_EQ(m_window.remote()->model, kServedModelId);
    EXPECT_EQ(child<QLabel>("model")->text(), "stories260K · on gpu-box");
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    expect_remote(message(last_message()), server.url());
    EXPECT_TRUE(message(last_message()).finished);
}

// The remote model in use is kept in the settings, answers again at the next start, and gives
// way to a local model chosen after it.
TEST_F(MainWindowRemoteTest, TheRemoteModelInUseAnswersAgainAfterARestart) {
    test::LocalApiServer server;
    use_short_answers();
    ASSERT_TRUE(choose_remote(server.url()));
    EXPECT_EQ(m_window.global_settings().remote_connection, "gpu-box");
    EXPECT_EQ(m_window.global_settings().remote_model, kServedModelId);

    // What the next start reads: the connection saved, and the choice made with it.
    auto global = m_window.global_settings();
    global.connections = {{.name = "gpu-box", .base_url = QString::fromStdString(server.url())}};
    m_window.apply_global_settings(global);
    m_window.load_model(bundled());
    ASSERT_TRUE(QTest::qWaitFor([&] { return !m_window.remote(); }, 20000));
    EXPECT_TRUE(m_window.global_settings().remote_connection.isEmpty());
    global.remote_connection = "gpu-box";
    global.remote_model = kServedModelId;
    m_window.apply_global_settings(global);
    ASSERT_TRUE(m_window.restore_remote());
    ASSERT_TRUE(QTest::qWaitFor([&] { return m_window.remote().has_value(); }, 20000));
    EXPECT_EQ(child<QLabel>("model")->text(), "stories260K · on gpu-box");
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    expect_remote(message(last_message()), server.url());
    EXPECT_TRUE(message(last_message()).finished);
}

// A remote model whose connection was removed since the last start is not asked: the local model
// answers, and the header says why.
TEST_F(MainWindowRemoteTest, ARemovedConnectionFallsBackToTheLocalModelWithANotice) {
    auto global = m_window.global_settings();
    global.remote_connection = "gpu-box";
    global.remote_model = kServedModelId;
    m_window.apply_global_settings(global);
    EXPECT_FALSE(m_window.restore_remote());
    EXPECT_TRUE(m_window.global_settings().remote_connection.isEmpty());
    ASSERT_TRUE(load(bundled()));
    EXPECT_FALSE(m_window.remote());
    const QString notice = child<QLabel>("modelNotice")->text();
    EXPECT_TRUE(
        notice.contains("The connection 'gpu-box' that answered last time no longer "
                        "exists."))
        << notice.toStdString();
    EXPECT_TRUE(notice.contains("Running")) << notice.toStdString();
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    expect_local(message(last_message()));
}

// A remote model whose saved connection can no longer be used (here its address) is asked, is
// refused, and the local model the start would have loaded answers instead, the reason above it.
TEST_F(MainWindowRemoteTest, AnUnusableSavedConnectionFallsBackToTheLocalModelWithTheReason) {
    auto global = m_window.global_settings();
    global.connections = {{.name = "gpu-box", .base_url = "ftp://gpu-box:8000/v1"}};
    global.remote_connection = "gpu-box";
    global.remote_model = kServedModelId;
    m_window.apply_global_settings(global);
    QSignalSpy loaded(m_engine->worker(), &InferenceWorker::modelLoaded);
    ASSERT_TRUE(m_window.restore_remote(bundled()));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !loaded.isEmpty(); }, 20000));
    QCoreApplication::processEvents();
    EXPECT_FALSE(m_window.remote());
    EXPECT_TRUE(m_window.global_settings().remote_connection.isEmpty());
    const QString notice = child<QLabel>("modelNotice")->text();
    EXPECT_TRUE(notice.contains("The connection 'gpu-box' that answered last time cannot be used"))
        << notice.toStdString();
    EXPECT_TRUE(notice.contains("ftp://")) << notice.toStdString();
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    expect_local(message(last_message()));
}

// While a remote engine answers, the context meter and the dashboard do not show the local
// model's context size and KV cache as the remote's: the API reports neither, and they say so.
// The local model's figures come back with it.
TEST_F(MainWindowRemoteTest, TheLocalModelsContextAndMemoryAreNotShownForTheRemote) {
    test::LocalApiServer server;
    use_short_answers();
    ASSERT_TRUE(load(bundled()));
    auto* meter = child<QProgressBar>("contextMeter");
    auto* memory = child<QLabel>("memory");
    auto* fill = child<QLabel>("contextFill");
    const QString local_memory = memory->text();
    ASSERT_TRUE(choose_remote(server.url()));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    const int used = message(last_message()).generation->stats.prompt_tokens +
                     message(last_message()).generation->stats.generated_tokens;
    EXPECT_EQ(meter->text(),
              QString("context %1 tokens (the remote engine does not report its size)").arg(used));
    EXPECT_TRUE(memory->text().endsWith("KV cache on the remote engine, not reported"))
        << memory->text().toStdString();
    EXPECT_TRUE(fill->text().contains("does not report its context size"))
        << fill->text().toStdString();

    ASSERT_TRUE(load(bundled()));
    EXPECT_TRUE(meter->text().startsWith("context ")) << meter->text().toStdString();
    EXPECT_TRUE(meter->text().endsWith(QString(" / %1 tokens").arg(meter->maximum())));
    EXPECT_GT(meter->maximum(), 1);
    EXPECT_FALSE(memory->text().contains("remote"));
    EXPECT_EQ(memory->text().section(" / ", 1), local_memory.section(" / ", 1));
}

// Continue on a remote answer cut at its token limit carries the same answer on (the server is
// sent continue_final_message): with greedy sampling, 8 tokens and 8 more are the 16-token answer,
// not the first 8, an end of turn and a fresh answer. The served model has ChatML's template, whose
// end of turn is text in the prompt (stories260K's own format has none to tell the two apart).
TEST_F(MainWindowRemoteTest, ContinueCarriesARemoteAnswerOn) {
    test::LocalApiServer server(std::nullopt,
                                test::model_with_template(m_directory, test::kServedModel,
                                                          test::fixture_template("chatml")));
    ASSERT_TRUE(choose_remote(server.url()));
    const auto answer_with = [&](int max_tokens) {
        auto settings = m_window.current_conversation()->settings();
        settings.max_tokens = max_tokens;
        settings.sampler.temperature = 0;  // greedy: the same text each time
        m_window.apply_conversation_settings(settings);
    };
    answer_with(16);
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    const QString whole = last_answer();

    m_window.newConversation();
    answer_with(8);
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    const int answer = last_message();
    const QString part = message(answer).text;
    ASSERT_EQ(message(answer).generation->stats.stop_reason, StopReason::MaxTokens);
    ASSERT_TRUE(whole.startsWith(part)) << whole.toStdString() << " | " << part.toStdString();
    ASSERT_LT(part.size(), whole.size());
    const auto continued = click_and_wait(answer, "continueAnswer");
    EXPECT_EQ(continued.message, answer);  // the same message, carried on
    EXPECT_EQ(message(answer).text.toStdString(), whole.toStdString());
    expect_remote(message(answer), server.url());
    EXPECT_EQ(message(answer).generation->stats.generated_tokens, 16);
}

}  // namespace
}  // namespace hearth
