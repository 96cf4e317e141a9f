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

// An earlier exchange, so the pictures show Markdown (a numbered list, a quote, a URL longer
// than the view, a highlighted code block) as well as what the small bundled model writes.
const char* const kEarlierAnswer =
    "Here is a **tiny** example in C++:\n\n"
    "```cpp\n#include <cstdio>\n\n// Prints a greeting.\nint main() { std::printf(\"hello "
    "%d, from a line longer than its block\\n\", 42); return 0; }\n```\n\n"
    "1. Save it as `hello.cpp`\n2. Compile it with `g++ hello.cpp`\n3. Run `./a.out`\n\n"
    "> Programs must be written for people to read, and only incidentally for machines to "
    "execute.\n\n"
    "More in https://en.cppreference.com/w/cpp/io/c/"
    "fprintf#Formatted_output_to_a_stream_or_buffer_with_a_very_long_anchor_name";

// Short enough for the answer to be cut off, so the pictures show Continue.
constexpr int kTourMaxTokens = 48;

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

void ScreenshotTour::ask(const QString& text, const char* streaming_picture) {
    m_chunks = 0;
    m_window.findChild<QPlainTextEdit*>(QStringLiteral("prompt"))->setPlainText(text);
    m_window.send();
    if (streaming_picture != nullptr) wait_mid_stream(streaming_picture);
}

void ScreenshotTour::wait_mid_stream(const char* picture) {
    QTimer::singleShot(20, this, [this, picture] {
        if (!m_window.generating()) return;
        if (m_chunks < 3) return wait_mid_stream(picture);
        save(m_window, picture);
    });
}

void ScreenshotTour::set_max_tokens(int max_tokens) {
    auto settings = m_window.current_conversation()->settings();
    settings.max_tokens = max_tokens;
    m_window.apply_conversation_settings(settings);
}

void ScreenshotTour::next() {
    switch (++m_step) {
        case 1: {
            auto* conversation = m_window.current_conversation();
            const int question = conversation->add(-1, "user", "Show me hello world in C++.");
            conversation->add(question, "assistant", kEarlierAnswer);
            m_window.renameConversation(conversation->id(), "Hello world, then a story");
            m_default_max_tokens = conversation->settings().max_tokens;
            set_max_tokens(kTourMaxTokens);
            ask("Once upon a time", nullptr);  // too short to be caught mid-stream
            break;
        }
        case 2: {
            // The answer stopped at the token limit, its figures under it, with Continue.
            save(m_window, "chat-finished-light");
            auto* conversation = m_window.current_conversation();
            m_window.continueAnswer(conversation->thread().back());
            break;
        }
        case 3: {
            save(m_window, "chat-continued-light");
            const QSize size = m_window.size();
            m_window.resize(800, 600);
            save(m_window, "chat-narrow-light");
            m_window.resize(size);
            set_max_tokens(m_default_max_tokens);
            ask("Then the dog came.", "chat-streaming-light");
            break;
        }
        case 4: {
            auto settings = m_window.global_settings();
            settings.theme = core::Theme::Dark;
            m_window.apply_global_settings(settings);
            ask("Tell me about a dog named Max.", "chat-streaming-dark");
            break;
        }
        case 5: {
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
            ui::ModelPicker picker(
                scan,
                {.requested_context = m_window.current_conversation()->settings().context_length,
                 .loaded_path = m_window.model_path(),
                 .folders = m_window.global_settings().model_folders},
                &m_window);
            picker.show();
            save(picker, "model-picker");
            start_server();
            break;
        }
        case 6:
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
