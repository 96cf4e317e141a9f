// The live view of how fast the engine is: tokens/s per token and on average while an answer
// streams, time to first token, prefill rate, tokens, context fill, process and KV-cache
// memory; the last answer's latency histogram; past generations and benchmark runs from the
// history; a button that benchmarks the loaded model; and, while the in-process API server
// runs, its load. Redrawn at most once per frame.
#pragma once

#include <QTimer>
#include <QWidget>

#include <vector>

#include "app/core/benchmark_result.h"
#include "engine/generation/generation_stats.h"
#include "engine/generation/token_chunk.h"
#include "engine/model/model_info.h"
#include "ui/chart_view.h"

namespace hearth::core {
class HistoryStore;
class ServerStatus;
}  // namespace hearth::core

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace hearth::ui {

class ServerLoadView;

class PerformanceDashboard final : public QWidget {
    Q_OBJECT

public:
    explicit PerformanceDashboard(QWidget* parent = nullptr);

    void set_history(core::HistoryStore* history);
    // Shows the server's load while it runs, from the first call on; `status` must outlive the
    // dashboard.
    void set_server_status(const core::ServerStatus& status);
    void set_model(const ModelInfo& info, int context_length);
    // A remote engine answers from now on: its KV cache and context size are not reported by the
    // API, so they are said to be unknown rather than shown as the local model's. set_model ends
    // it.
    void set_remote();
    void generation_started(int context_length);
    void add_chunk(const TokenChunk& chunk);
    // `remote`: a remote engine's answer, whose prompt figures are the server's usage (when it
    // gave one) and whose timings were measured here, at the client.
    void generation_finished(const GenerationStats& stats, bool remote = false);
    void show_benchmark_progress(int percent);
    void show_benchmark(const core::BenchmarkResult& result);
    void benchmark_failed(const QString& message);

    const RateChart& rate_chart() const { return *m_rate; }
    const HistogramChart& histogram_chart() const { return *m_histogram; }
    int redraws() const { return m_redraws; }
    const ServerLoadView* server_load() const { return m_server_load; }

signals:
    void runBenchmarkRequested();
    void cancelBenchmarkRequested();

private:
    void redraw();
    void update_memory();
    void refresh_tables();

    core::HistoryStore* m_history = nullptr;
    QTimer m_frame;
    QTimer m_memory_timer;
    std::vector<int64_t> m_times;
    int m_prompt_tokens = 0;
    int m_context_length = 0;
    uint64_t m_kv_bytes = 0;  // at the model's context length
    bool m_remote = false;    // a remote engine answers: no KV or context figures are known
    int m_redraws = 0;
    QLabel *m_first_token, *m_prefill, *m_tokens, *m_decode, *m_context, *m_memory;
    RateChart* m_rate;
    HistogramChart* m_histogram;
    QTableWidget* m_generations;
    QTableWidget* m_benchmarks;
    QPushButton *m_run, *m_cancel;
    QProgressBar* m_progress;
    QWidget* m_server = nullptr;  // the server's section, shown while it runs
    ServerLoadView* m_server_load = nullptr;
};

// Resident memory of this process, from /proc/self/statm (0 where unavailable).
uint64_t resident_bytes();

}  // namespace hearth::ui
