// `hearth --screenshots DIR`: drives the real window through a short session on the loaded
// model and saves what it looks like (chat mid-stream and finished, light and dark, an answer
// cut off at the token limit and continued, the chat in an 800×600 window, the model picker,
// the settings dialog, and the Server page and dashboard with the in-process API server
// answering a few clients) as PNG files, then quits. For the docs and for reviewing the UI
// on machines without a desktop (under Xvfb or the offscreen platform).
#pragma once

#include <QObject>
#include <QString>

#include <memory>

namespace hearth {

class DemoClients;
class EngineController;
namespace ui {
class MainWindow;
}

// Steps through the tour as the engine reports back (app/wiring.cpp connects it).
class ScreenshotTour final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ScreenshotTour)

public:
    ScreenshotTour(ui::MainWindow& window, QString folder);
    ~ScreenshotTour() override;

    void modelLoaded() { next(); }
    void chunkArrived() { ++m_chunks; }
    void answerFinished();

private:
    void save(QWidget& widget, const char* name);
    // Sends `text`; `streaming_picture` names the picture taken mid-answer (none: nullptr).
    void ask(const QString& text, const char* streaming_picture);
    void wait_mid_stream(const char* picture);
    void set_max_tokens(int max_tokens);
    void start_server();
    void save_server();
    void next();

    ui::MainWindow& m_window;
    QString m_folder;
    int m_step = 0;
    int m_chunks = 0;
    int m_default_max_tokens = 0;
    std::unique_ptr<DemoClients> m_clients;
};

// Starts the tour; it ends by quitting the application. The window owns the tour.
void start_screenshot_tour(ui::MainWindow& window, EngineController& engine, const QString& folder);

}  // namespace hearth
