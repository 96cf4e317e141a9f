#include "app/screenshot_tour.h"

#include <spdlog/spdlog.h>
#include <QApplication>
#include <QDir>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTimer>

#include "app/demo_clients.h"
#include "app/wiring.h"
#include "ui/main_window.h"
#include "ui/model_picker.h"
#include "ui/server_page.h"
#include "ui/settings_dialog.h"
#include "ui/theme.h"

namespace hearth {
namespace {

// An earlier exchange, so the pictures show Markdown and a highlighted code block as well as
// what the small bundled model writes.
const char* const kEarlierAnswer =
    "Here is a **tiny** example in C++:\n\n"
    "```cpp\n#include <cstdio>\n\n// Prints a greeting.\nint main() {\n"
    "    std::printf(\"hello %d\\n\", 42);\n    return 0;\n}\n```\n\n"
    "- It compiles with `g++ hello.cpp`\n- and prints *hello 42*.";

// Long enough for several of the server's once-a-second reports: a line on the chart.
constexpr int kServerPictureDelayMs = 6000;
constexpr int kDemoClients = 4;

void quit() {
    QTimer::singleShot(0, qApp, &QApplication::quit);
}

}  // namespace

ScreenshotTour::ScreenshotTour(ui::MainWindow& window, QString folder)
    : QObject(&window), m_window(window), m_folder(std::move(folder)) {
    QDir().mkpath(m_folder);
}

ScreenshotTour::~ScreenshotTour() = default;

void ScreenshotTour::answerFinished() {
    QTimer::singleShot(100, this, [this] { next(); });
}

void ScreenshotTour::save(QWidget& widget, const char* name) {
    // Let layouts settle (a resize re-fixes paragraph heights, which lays out again).
    for (int i = 0; i < 5; ++i) QApplication::processEvents();
    const QString path = QDir(m_folder).filePath(QString::fromLatin1(name) + ".png");
    widget.grab().save(path);
    spdlog::info("saved {}", path.toStdString());
}

void ScreenshotTour::ask(const QString& text) {
    m_chunks = 0;
    m_window.findChild<QPlainTextEdit*>(QStringLiteral("prompt"))->setPlainText(text);
    m_window.send();
    wait_mid_stream();
}

void ScreenshotTour::wait_mid_stream() {
    QTimer::singleShot(20, this, [this] {
        if (!m_window.generating()) return;
        if (m_chunks < 3) return wait_mid_stream();
        save(m_window, m_step == 1 ? "chat-streaming-light" : "chat-streaming-dark");
    });
}

void ScreenshotTour::next() {
    switch (++m_step) {
        case 1: {
            auto* conversation = m_window.current_conversation();
            const int question = conversation->add(-1, "user", "Show me hello world in C++.");
            conversation->add(question, "assistant", kEarlierAnswer);
            m_window.renameConversation(conversation->id(), "Hello world, then a story");
            ask("Once upon a time");
            break;
        }
        case 2: {
            save(m_window, "chat-finished-light");
            auto settings = m_window.global_settings();
            settings.theme = core::Theme::Dark;
            m_window.apply_global_settings(settings);
            ask("Tell me about a dog named Max.");
            break;
        }
        case 3: {
            save(m_window, "chat-finished-dark");
            // The dashboard beside the chat, after the answer it measured.
            m_window.findChild<QPushButton*>(QStringLiteral("showDashboard"))->setChecked(true);
            m_window.resize(1500, 900);
            save(m_window, "dashboard");
            m_window.findChild<QPushButton*>(QStringLiteral("showDashboard"))->setChecked(false);
            ui::SettingsDialog settings(m_window.current_conversation()->settings(),
                                        m_window.global_settings(), m_window.template_choices(),
                                        m_window.server_status(), &m_window);
            settings.show();
            save(settings, "settings-dialog");
            const auto scan = [this] {
                const auto& source = m_window.model_source();
                return source ? source(m_window.global_settings().model_folders)
                              : std::vector<core::ModelEntry>{};
            };
            ui::ModelPicker picker(scan, 4096, &m_window);
            picker.show();
            save(picker, "model-picker");
            start_server();
            break;
        }
        case 4:
            save_server();
            quit();
            break;
        default:
            break;
    }
}

// The in-process server on the window's model, with clients keeping its rows busy; the
// pictures are taken once it has reported for a few seconds.
void ScreenshotTour::start_server() {
    auto* status = m_window.server_status();
    if (status == nullptr) return quit();
    connect(status, &core::ServerStatus::stateChanged, this, [this, status] {
        if (status->running() && !m_clients) {
            m_clients = std::make_unique<DemoClients>(status->state().port, kDemoClients);
            QTimer::singleShot(kServerPictureDelayMs, this, [this] { next(); });
        } else if (status->state().phase == core::ServerPhase::Stopped &&
                   !status->state().error.isEmpty()) {
            spdlog::warn("the API server did not start: {}", status->state().error.toStdString());
            quit();
        }
    });
    status->request_start({.port = 0, .rows = kDemoClients});
}

void ScreenshotTour::save_server() {
    ui::SettingsDialog settings(m_window.current_conversation()->settings(),
                                m_window.global_settings(), m_window.template_choices(),
                                m_window.server_status(), &m_window);
    settings.findChild<QTabWidget*>()->setCurrentWidget(settings.findChild<ui::ServerPage*>());
    settings.show();
    save(settings, "settings-server");
    settings.hide();
    m_window.findChild<QPushButton*>(QStringLiteral("showDashboard"))->setChecked(true);
    save(m_window, "dashboard-server");
    m_clients.reset();
}

void start_screenshot_tour(ui::MainWindow& window, EngineController& engine,
                           const QString& folder) {
    wire(*new ScreenshotTour(window, folder), engine);  // owned by the window
}

}  // namespace hearth
