// hearth-gui-bench: how long the GUI event loop stalls while an answer streams at full speed.
// A 1 ms timer on the GUI thread records the gap between its ticks; a gap is the longest the
// window could not react (to a key, a repaint, the stop button). Two producers: a synthetic one
// that floods the window with Markdown (prose and code) as fast as the hand-off allows (also
// with its first half as reasoning, which streams into the answer's Thinking block first), and
// the real engine on the bundled model.
//   hearth-gui-bench [--tokens N] [--model MODEL.gguf]
#include <fmt/format.h>
#include <QApplication>
#include <QElapsedTimer>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <thread>

#include "app/bundled_model.h"
#include "app/engine_controller.h"
#include "app/wiring.h"
#include "bench/statistics.h"
#include "ui/main_window.h"

namespace {

struct Gaps {
    std::vector<double> milliseconds;
    void report(const char* name, double seconds, int tokens) {
        auto sorted = milliseconds;
        std::sort(sorted.begin(), sorted.end());
        const auto at = [&](double q) {
            return sorted.empty() ? 0.0 : sorted[static_cast<size_t>(q * (sorted.size() - 1))];
        };
        fmt::print("| {:<22} | {:>7} | {:>9.1f} | {:>8.2f} | {:>8.2f} | {:>8.2f} |\n", name, tokens,
                   tokens / seconds, at(0.5), at(0.99), sorted.empty() ? 0.0 : sorted.back());
    }
};

// Ticks every millisecond and records how late each tick was.
class StallMeter final : public QObject {
public:
    StallMeter() {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(1);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const double now = m_clock.nsecsElapsed() / 1e6;
            if (m_last >= 0) gaps.milliseconds.push_back(now - m_last);
            m_last = now;
        });
    }
    void start() {
        gaps = {};
        m_last = -1;
        m_clock.start();
        m_timer.start();
    }
    void stop() { m_timer.stop(); }
    Gaps gaps;

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_last = -1;
};

const char* const kPieces[] = {
    "The ",        "quick ",         "brown ",      "fox ",           "jumps ",
    "over ",       "the ",           "lazy ",       "dog. ",          "It ",
    "**really** ", "does.\n\n",      "```cpp\n",    "int main() {\n", "    return 0;\n",
    "}\n",         "```\n\n",        "- a list\n",  "- of items\n\n", "And `inline code` too. ",
    "1. a step\n", "2. another\n\n", "> a quote\n", "> goes on\n\n"};

// Emits chunks like the decode loop does (8 tokens or 30 ms), at `rate` tokens per second; the
// first `reasoning` tokens are reasoning.
void synthetic_producer(hearth::ui::MainWindow* window, int conversation, int tokens, int rate,
                        int reasoning) {
    hearth::TokenChunk chunk;
    const auto start = std::chrono::steady_clock::now();
    auto last = start;
    for (int i = 0; i < tokens; ++i) {
        chunk.tokens.push_back(i);
        if (i < reasoning) {
            chunk.reasoning += kPieces[i % std::size(kPieces)];
            ++chunk.reasoning_tokens;
        } else {
            chunk.text += kPieces[i % std::size(kPieces)];
        }
        chunk.token_times_ns.push_back(i);
        const auto due = start + std::chrono::microseconds(1'000'000LL * (i + 1) / rate);
        std::this_thread::sleep_until(due);
        const auto now = std::chrono::steady_clock::now();
        if (chunk.tokens.size() >= 8 || now - last >= std::chrono::milliseconds(30)) {
            QMetaObject::invokeMethod(window, "appendChunk", Qt::QueuedConnection,
                                      Q_ARG(int, conversation), Q_ARG(hearth::TokenChunk, chunk));
            chunk.clear();
            last = now;
        }
    }
    hearth::GenerationResult result;
    result.stats.generated_tokens = tokens;
    result.stats.reasoning_tokens = reasoning;
    QMetaObject::invokeMethod(window, "finishGeneration", Qt::QueuedConnection,
                              Q_ARG(int, conversation), Q_ARG(hearth::GenerationResult, result));
}

bool wait_until(const std::function<bool()>& done, int timeout_ms);

// Sends `prompt` and measures the event loop until the answer is finished; returns seconds.
double measure_answer(hearth::ui::MainWindow& window, StallMeter& meter, const QString& prompt) {
    window.findChild<QPlainTextEdit*>("prompt")->setPlainText(prompt);
    QElapsedTimer clock;
    clock.start();
    meter.start();
    window.send();
    wait_until([&] { return !window.generating(); }, 600000);
    const double seconds = clock.nsecsElapsed() / 1e9;
    // The window goes on rendering what arrived last: keep measuring a little past the end.
    wait_until([] { return false; }, 500);
    meter.stop();
    return seconds;
}

bool wait_until(const std::function<bool()>& done, int timeout_ms) {
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > timeout_ms) return false;
        QApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication application(argc, argv);
    int tokens = 2000;
    int threads = 0;
    QString model;
    const auto arguments = QApplication::arguments();
    for (int i = 1; i + 1 < arguments.size(); ++i) {
        if (arguments[i] == "--tokens") tokens = arguments[i + 1].toInt();
        if (arguments[i] == "--model") model = arguments[i + 1];
        if (arguments[i] == "--threads") threads = arguments[i + 1].toInt();
    }
    if (model.isEmpty()) model = QString::fromStdString(hearth::bundled_model_path().string());
    qRegisterMetaType<hearth::TokenChunk>();
    qRegisterMetaType<hearth::GenerationResult>();

    fmt::print("platform: {}\n", QApplication::platformName().toStdString());
    fmt::print(
        "| producer               | tokens  | tok/s     | p50 ms   | p99 ms   | max ms   |\n");
    fmt::print(
        "|------------------------|--------:|----------:|---------:|---------:|---------:|\n");
    StallMeter meter;
    {
        hearth::ui::MainWindow window;
        window.show();
        window.showModel(hearth::ModelInfo{.name = "synthetic"}, 4096, {});
        for (const bool reasoning : {false, true}) {
            for (const int rate : {200, 2000, 20000}) {
                window.newConversation();
                std::thread producer;
                QObject::connect(
                    &window, &hearth::ui::MainWindow::generateRequested, &window,
                    [&](const hearth::ChatRequest& request) {
                        producer = std::thread(synthetic_producer, &window, request.conversation,
                                               tokens, rate, reasoning ? tokens / 2 : 0);
                    },
                    Qt::SingleShotConnection);
                const double seconds = measure_answer(window, meter, "Write a lot.");
                producer.join();
                meter.gaps.report(
                    fmt::format("{} {} tok/s", reasoning ? "reasoning" : "synthetic", rate).c_str(),
                    seconds, tokens);
            }
        }
    }
    // The real engine, with the performance dashboard hidden and then shown: its charts must not
    // slow generation (compare the two rows' tok/s).
    for (const bool dashboard : {false, true}) {
        hearth::core::GlobalSettings global;
        global.threads = threads;
        hearth::ui::MainWindow window(global);
        hearth::EngineController engine;
        hearth::wire(window, engine);
        window.show();
        if (dashboard) window.findChild<QPushButton*>("showDashboard")->setChecked(true);
        emit engine.loadModelRequested(model);
        bool loaded = false;
        QObject::connect(engine.worker(), &hearth::InferenceWorker::modelLoaded, &window,
                         [&] { loaded = true; });
        if (!wait_until([&] { return loaded; }, 120000)) return 1;
        auto settings = window.current_conversation()->settings();
        settings.max_tokens = tokens;
        settings.context_length = tokens + 256;
        settings.random_seed = false;  // the same story every run
        settings.sampler.seed = 1;
        window.apply_conversation_settings(settings);
        int generated = 0;
        double decode_rate = 0;
        QObject::connect(engine.worker(), &hearth::InferenceWorker::generationFinished, &window,
                         [&](int, const hearth::GenerationResult& result) {
                             generated = result.stats.generated_tokens;
                             decode_rate = result.stats.decode_tokens_per_second();
                         });
        QObject::connect(engine.worker(), &hearth::InferenceWorker::errorOccurred, &window,
                         [](const QString& message) {
                             fmt::print(stderr, "engine error: {}\n", message.toStdString());
                         });
        const double seconds = measure_answer(window, meter, "Once upon a time");
        meter.gaps.report(dashboard ? "engine + dashboard" : "engine (bundled model)", seconds,
                          generated);
        fmt::print(stderr, "engine{}: decode {:.1f} tok/s\n", dashboard ? " + dashboard" : "",
                   decode_rate);
    }
    return 0;
}
