// The window with a remote engine answering, over real sockets on 127.0.0.1, for the tests of
// tests/app/main_window_remote_*_test.cpp: keys kept out of the user's keyring, a remote chosen
// as the user chooses one, and what an answer's record says about where it came from.
#pragma once

#include <gtest/gtest.h>

#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include <string>

#include "tests/support/main_window_fixture.h"

namespace hearth::test {

// The model hearth-server's parts serve in these tests (LocalApiServer).
inline constexpr const char* kServedModelId = "stories260K";

class MainWindowRemoteTest : public MainWindowHistoryTest {
protected:
    // API keys go to a file under the test's own data folder, as on a machine without a
    // keyring: no test writes into the user's keyring or data.
    static void SetUpTestSuite() {
        qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/hearth-test-bus");
        QStandardPaths::setTestModeEnabled(true);
    }
    // `url` answers from now on, as the connection "gpu-box" (trusting `certificate`, if any).
    bool choose_remote(const std::string& url, const QString& model = kServedModelId,
                       const QString& certificate = {}) {
        QSignalSpy chosen(m_engine->worker(), &InferenceWorker::remoteChosen);
        QSignalSpy failed(m_engine->worker(), &InferenceWorker::remoteRefused);
        m_window.use_remote({.connection = {.name = "gpu-box",
                                            .base_url = QString::fromStdString(url),
                                            .trusted_certificate = certificate},
                             .model = model});
        EXPECT_TRUE(QTest::qWaitFor([&] { return !chosen.isEmpty() || !failed.isEmpty(); }, 20000));
        QCoreApplication::processEvents();
        return !chosen.isEmpty();
    }
    // Short answers the server's 256-token context holds.
    void use_short_answers() {
        auto settings = m_window.current_conversation()->settings();
        settings.max_tokens = 16;
        m_window.apply_conversation_settings(settings);
    }
    const core::Message& message(int id) { return *m_window.current_conversation()->find(id); }
    QString status() { return child<QLabel>("status")->text(); }

    // The record says the remote engine ("gpu-box" at `url`) made it.
    static void expect_remote(const core::Message& answer, const std::string& url) {
        ASSERT_TRUE(answer.generation) << answer.id;
        EXPECT_TRUE(answer.generation->remote());
        EXPECT_EQ(answer.generation->connection, "gpu-box");
        EXPECT_EQ(answer.generation->connection_url.toStdString(), url);
        EXPECT_EQ(answer.generation->remote_model, kServedModelId);
        EXPECT_EQ(answer.generation->model_file, "");
    }
    static void expect_local(const core::Message& answer) {
        ASSERT_TRUE(answer.generation) << answer.id;
        EXPECT_FALSE(answer.generation->remote());
        EXPECT_EQ(answer.generation->model_file, bundled());
    }
};

}  // namespace hearth::test
