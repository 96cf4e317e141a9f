// The in-process API server as a user runs it: the window and its engine thread on a shared
// model, the Settings dialog's Server page started with a click, a real HTTP client on
// 127.0.0.1, the live counts on the page and the dashboard, a real SQLite history; a port that
// is already taken; the window moving to another model; and quitting, which stops the server.
#include "app/server_controller.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>
#include <QUrl>

#include <future>

#include "app/core/history_store.h"
#include "app/engine_controller.h"
#include "app/wiring.h"
#include "engine/runtime/engine.h"
#include "engine/text/jinja/json.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "ui/main_window.h"
#include "ui/performance_dashboard.h"
#include "ui/server_load_view.h"
#include "ui/server_page.h"
#include "ui/settings_dialog.h"

namespace hearth {
namespace {

constexpr const char* kModel = "stories260K.gguf";
constexpr int kWaitMs = 60000;  // bounded waits, generous for a sanitizer build

QString model(const char* file) {
    return QString::fromStdString(test::model_path(file).string());
}

// The CPU with two threads, as every test of the engine runs.
core::GlobalSettings cpu_settings() {
    core::GlobalSettings settings;
    settings.backend = QStringLiteral("cpu");
    settings.threads = 2;
    return settings;
}

std::string chat_body(const std::string& question) {
    return R"({"messages":[{"role":"system","content":"You tell stories."},)"
           R"({"role":"user","content":")" +
           question + R"("}],"max_tokens":16,"temperature":0})";
}

// The content of a chat completion's first choice.
std::string answer_text(const std::string& body) {
    const auto json = jinja::parse_json(body);
    const auto& choice = json.as_object().find("choices")->as_array().at(0);
    return choice.as_object().find("message")->as_object().find("content")->as_string();
}

// A socket listening on a port of 127.0.0.1 the system chose, held for the test's lifetime.
class TakenPort final {
public:
    TakenPort() : m_socket(::socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        auto* raw = reinterpret_cast<sockaddr*>(&address);
        if (::bind(m_socket, raw, size) != 0 || ::listen(m_socket, 1) != 0 ||
            ::getsockname(m_socket, raw, &size) != 0) {
            throw std::runtime_error("could not take a port");
        }
        m_port = ntohs(address.sin_port);
    }
    ~TakenPort() { ::close(m_socket); }
    TakenPort(const TakenPort&) = delete;
    TakenPort& operator=(const TakenPort&) = delete;
    int port() const { return m_port; }

private:
    int m_socket;
    int m_port = 0;
};

class ServerControllerTest : public testing::Test {
protected:
    ServerControllerTest()
        : m_history(QString::fromStdString((m_directory.path() / "history.sqlite").string())),
          m_window(cpu_settings()),
          m_engine(std::make_unique<EngineController>()),
          m_server(std::make_unique<ServerController>()) {
        m_window.set_history(&m_history);
        wire(m_window, *m_engine);
        wire(m_window, *m_server, *m_engine);
        m_window.show();
    }

    void SetUp() override { ASSERT_TRUE(load(model(kModel))); }

    core::ServerStatus& status() { return m_server->status(); }

    bool load(const QString& path) {
        emit m_engine->loadModelRequested(path);
        return QTest::qWaitFor([&] { return status().window_model() == path; }, kWaitMs);
    }

    // The Settings dialog as the window opens it, shown without blocking, on its Server page.
    std::unique_ptr<ui::SettingsDialog> open_settings() {
        auto dialog = std::make_unique<ui::SettingsDialog>(
            m_window.current_conversation()->settings(), m_window.global_settings(),
            m_window.template_choices(), m_window.server_status(), &m_window);
        auto* tabs = dialog->findChild<QTabWidget*>();
        tabs->setCurrentWidget(dialog->findChild<ui::ServerPage*>());
        dialog->show();
        return dialog;
    }

    template <typename T>
    static T* child(QWidget& parent, const char* name) {
        auto* found = parent.findChild<T*>(QString::fromLatin1(name));
        EXPECT_NE(found, nullptr) << name;
        return found;
    }

    // Clicks Start on the page and waits until the server runs or has failed to start.
    bool start_from(QWidget& page, int port, int rows) {
        child<QSpinBox>(page, "serverPort")->setValue(port);
        child<QSpinBox>(page, "serverRows")->setValue(rows);
        QTest::mouseClick(child<QPushButton>(page, "serverStartStop"), Qt::LeftButton);
        EXPECT_TRUE(QTest::qWaitFor(
            [&] {
                const auto phase = status().state().phase;
                return phase == core::ServerPhase::Running || phase == core::ServerPhase::Stopped;
            },
            kWaitMs));
        return status().running();
    }

    // The URL the page gives clients, as httplib wants it.
    static httplib::Client client_for(QWidget& page) {
        const QUrl url(child<QLineEdit>(page, "serverUrl")->text());
        httplib::Client client(url.host().toStdString(), url.port());
        client.set_read_timeout(120, 0);
        return client;
    }

    // A chat request from another thread, the GUI's event loop running meanwhile.
    static httplib::Result chat(QWidget& page, const std::string& question) {
        auto answer = std::async(std::launch::async, [&page, question] {
            return client_for(page).Post("/v1/chat/completions", chat_body(question),
                                         "application/json");
        });
        EXPECT_TRUE(QTest::qWaitFor(
            [&] { return answer.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
            kWaitMs));
        return answer.get();
    }

    bool stop_from(QWidget& page) {
        QTest::mouseClick(child<QPushButton>(page, "serverStartStop"), Qt::LeftButton);
        return QTest::qWaitFor([&] { return status().state().phase == core::ServerPhase::Stopped; },
                               kWaitMs);
    }

    std::vector<QString> stored_titles() const {
        std::vector<QString> titles;
        for (const auto& conversation : m_history.conversations())
            titles.push_back(conversation.title);
        return titles;
    }

    test::TempDirectory m_directory;
    core::HistoryStore m_history;
    ui::MainWindow m_window;
    std::unique_ptr<EngineController> m_engine;
    std::unique_ptr<ServerController> m_server;
};

// Started from Settings → Server on a free port: the URL it shows reaches a server that answers
// a real client as the engine answers alone; the page and the dashboard count the request;
// nothing reaches the history; Stop closes the port.
TEST_F(ServerControllerTest, StartedFromTheSettingsItAnswersARealClient) {
    auto dialog = open_settings();
    ASSERT_TRUE(start_from(*dialog, 0, 2)) << status().state().error.toStdString();
    const int port = status().state().port;
    EXPECT_GT(port, 0);
    EXPECT_EQ(child<QLineEdit>(*dialog, "serverUrl")->text(),
              QStringLiteral("http://127.0.0.1:%1/v1").arg(port));
    EXPECT_TRUE(child<QLabel>(*dialog, "serverState")->text().contains(QString::number(port)));
    EXPECT_EQ(m_window.global_settings().server.rows, 2);  // a start keeps what it ran with

    Engine alone({.backend = {.kind = BackendPreference::Kind::Cpu, .threads = 2}});
    alone.load(test::model_path(kModel));
    const auto expected =
        alone.chat({.messages = {{.role = "system", .content = "You tell stories."},
                                 {.role = "user", .content = "Once upon a time"}},
                    .max_tokens = 16,
                    .sampler = {.temperature = 0.0f},
                    .fresh_seed = false},
                   {});
    // The counts the server reports once a second reach the page and the dashboard.
    auto* served = child<QLabel>(*dialog, "serverServed");
    EXPECT_TRUE(QTest::qWaitFor([&] { return served->text() == "0"; }, kWaitMs));
    const int listed = child<QListWidget>(m_window, "conversations")->count();
    const auto result = chat(*dialog, "Once upon a time");
    ASSERT_TRUE(result) << httplib::to_string(result.error());
    ASSERT_EQ(result->status, 200) << result->body;
    EXPECT_EQ(answer_text(result->body), expected.text);
    EXPECT_FALSE(expected.text.empty());
    EXPECT_TRUE(QTest::qWaitFor([&] { return served->text() == "1"; }, kWaitMs))
        << served->text().toStdString();
    EXPECT_EQ(child<QLabel>(*dialog, "serverRowsBusy")->text(), "0 of 2");
    const auto* load = m_window.dashboard()->server_load();
    ASSERT_NE(load, nullptr);
    EXPECT_TRUE(load->parentWidget()->isVisibleTo(m_window.dashboard()));
    EXPECT_EQ(load->findChild<QLabel*>("serverServed")->text(), "1");
    EXPECT_GT(load->chart()->point_count(), 0u);

    // Off by default: neither the window's list nor the history file has the API's chat.
    EXPECT_EQ(child<QListWidget>(m_window, "conversations")->count(), listed);
    for (const auto& title : stored_titles()) EXPECT_FALSE(title.startsWith("API: "));

    ASSERT_TRUE(stop_from(*dialog));
    EXPECT_TRUE(status().state().error.isEmpty());
    EXPECT_EQ(child<QLabel>(*dialog, "serverState")->text(), "Stopped.");
    EXPECT_FALSE(load->parentWidget()->isVisibleTo(m_window.dashboard()));
    httplib::Client gone("127.0.0.1", port);
    EXPECT_FALSE(gone.Get("/health"));
}

// With the setting on, a chat answered through the API is kept as a conversation of its own,
// titled as coming from the API, with its turns and its answer; the window stays on its own.
TEST_F(ServerControllerTest, KeepsApiConversationsWhenTheSettingsSaySo) {
    const int shown = m_window.current_conversation()->id();
    auto dialog = open_settings();
    child<QCheckBox>(*dialog, "keepApiHistory")->setChecked(true);
    m_window.apply_global_settings(dialog->global());  // OK, as the window applies it
    ASSERT_TRUE(start_from(*dialog, 0, 1)) << status().state().error.toStdString();
    const auto result = chat(*dialog, "Tell me about a cat");
    ASSERT_TRUE(result) << httplib::to_string(result.error());
    ASSERT_EQ(result->status, 200) << result->body;

    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            const auto titles = stored_titles();
            return std::find(titles.begin(), titles.end(), "API: Tell me about a cat") !=
                   titles.end();
        },
        kWaitMs));
    const auto stored = m_history.conversations();
    const auto kept = std::find_if(stored.begin(), stored.end(), [](const auto& entry) {
        return entry.title.startsWith("API: ");
    });
    const auto conversation = m_history.load(kept->id);
    ASSERT_TRUE(conversation.has_value());
    EXPECT_EQ(conversation->settings().system_prompt, "You tell stories.");
    const auto thread = conversation->thread();
    ASSERT_EQ(thread.size(), 2u);
    EXPECT_EQ(conversation->find(thread[0])->text, "Tell me about a cat");
    const auto* answer = conversation->find(thread[1]);
    EXPECT_EQ(answer->role, "assistant");
    EXPECT_EQ(answer->text.toStdString(), answer_text(result->body));
    ASSERT_TRUE(answer->generation.has_value());
    EXPECT_EQ(answer->generation->stats.generated_tokens, 16);
    EXPECT_EQ(answer->generation->model_file, model(kModel));
    EXPECT_EQ(m_window.current_conversation()->id(), shown);
    auto* list = child<QListWidget>(m_window, "conversations");
    EXPECT_EQ(list->item(0)->text(), "API: Tell me about a cat");  // listed first, not opened
    ASSERT_TRUE(stop_from(*dialog));
}

// A port another program holds: the page says the server could not start, naming the port.
TEST_F(ServerControllerTest, APortInUseIsNamed) {
    const TakenPort taken;
    auto dialog = open_settings();
    EXPECT_FALSE(start_from(*dialog, taken.port(), 1));
    const QString said = child<QLabel>(*dialog, "serverState")->text();
    EXPECT_TRUE(said.startsWith("The server could not start")) << said.toStdString();
    EXPECT_TRUE(said.contains(QStringLiteral("127.0.0.1:%1").arg(taken.port())))
        << said.toStdString();
    EXPECT_TRUE(said.contains("in use")) << said.toStdString();
    EXPECT_TRUE(child<QPushButton>(*dialog, "serverStartStop")->isEnabled());  // can try again
}

// The window loading another model leaves the server on the one it started with, and says so;
// quitting the app (the controller going) stops the server.
TEST_F(ServerControllerTest, KeepsItsModelAndStopsWhenTheAppQuits) {
    auto dialog = open_settings();
    ASSERT_TRUE(start_from(*dialog, 0, 1)) << status().state().error.toStdString();
    const int port = status().state().port;
    ASSERT_TRUE(load(model("llama-2-tiny-random.gguf")));
    auto* note = child<QLabel>(*dialog, "serverModelNote");
    EXPECT_TRUE(note->isVisible());
    EXPECT_TRUE(note->text().contains("llama-2-tiny-random.gguf")) << note->text().toStdString();
    EXPECT_EQ(status().state().model_file, model(kModel));
    httplib::Client client("127.0.0.1", port);
    const auto models = client.Get("/v1/models");
    ASSERT_TRUE(models);
    EXPECT_NE(models->body.find("stories260K"), std::string::npos) << models->body;

    dialog.reset();
    m_window.set_server_status(nullptr);
    m_server.reset();
    EXPECT_FALSE(client.Get("/health"));
}

}  // namespace
}  // namespace hearth
