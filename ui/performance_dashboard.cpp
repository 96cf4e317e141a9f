#include "ui/performance_dashboard.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <unistd.h>

#include "app/core/history_store.h"
#include "app/core/server_status.h"
#include "app/core/token_rate.h"
#include "ui/answer_figures.h"
#include "ui/model_picker.h"
#include "ui/server_load_view.h"

namespace hearth::ui {
namespace {

constexpr int kAverageWindow = 16;
constexpr int kHistogramBins = 24;

QLabel* value_label(const char* name) {
    auto* label = new QLabel(QStringLiteral("–"));
    label->setObjectName(QLatin1String(name));
    return label;
}

QTableWidget* table(const char* name, const QStringList& headers) {
    auto* widget = new QTableWidget(0, static_cast<int>(headers.size()));
    widget->setObjectName(QLatin1String(name));
    widget->setHorizontalHeaderLabels(headers);
    widget->setEditTriggers(QAbstractItemView::NoEditTriggers);
    widget->verticalHeader()->hide();
    widget->horizontalHeader()->setStretchLastSection(true);
    return widget;
}

void set_row(QTableWidget* widget, int row, const QStringList& cells) {
    for (int column = 0; column < cells.size(); ++column) {
        widget->setItem(row, column, new QTableWidgetItem(cells[column]));
    }
}

QString first_token_text(int64_t nanoseconds) {
    return QObject::tr("%1 ms").arg(static_cast<double>(nanoseconds) / 1e6, 0, 'f', 1);
}

QString when(qint64 ms) {
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd hh:mm"));
}

// A remote answer's prompt, as the server's usage counted it: the client cannot time the
// server's prefill (it is inside the time to first token).
QString remote_prompt_text(const GenerationStats& stats) {
    if (stats.prompt_tokens == 0) return QObject::tr("not reported by the server");
    return QObject::tr("%1 tokens, %2 cached (the server's usage)")
        .arg(stats.prompt_tokens)
        .arg(stats.cached_tokens);
}

}  // namespace

uint64_t resident_bytes() {
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly)) return 0;
    const auto fields = statm.readAll().split(' ');
    return fields.size() > 1
               ? fields[1].toULongLong() * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE))
               : 0;
}

PerformanceDashboard::PerformanceDashboard(QWidget* parent)
    : QWidget(parent),
      m_first_token(value_label("firstToken")),
      m_prefill(value_label("prefillRate")),
      m_tokens(value_label("generatedTokens")),
      m_decode(value_label("decodeRate")),
      m_context(value_label("contextFill")),
      m_memory(value_label("memory")),
      m_rate(new RateChart),
      m_histogram(new HistogramChart),
      m_generations(table("pastGenerations", {tr("When"), tr("Model"), tr("Backend"), tr("Tokens"),
                                              tr("tok/s"), tr("First token")})),
      m_benchmarks(table("benchmarks", {tr("When"), tr("Model"), tr("Machine"), tr("Prompt tok/s"),
                                        tr("Generation tok/s"), tr("Build")})),
      m_run(new QPushButton(tr("Run benchmark"))),
      m_cancel(new QPushButton(tr("Cancel"))),
      m_progress(new QProgressBar) {
    setObjectName(QStringLiteral("dashboard"));
    setAccessibleName(tr("Performance"));
    auto* figures = new QFormLayout;
    // Each figure under its name: the dock beside the chat is narrow.
    figures->setRowWrapPolicy(QFormLayout::WrapAllRows);
    figures->addRow(tr("Time to first token"), m_first_token);
    figures->addRow(tr("Prefill"), m_prefill);
    figures->addRow(tr("Tokens generated"), m_tokens);
    figures->addRow(tr("Decode"), m_decode);
    figures->addRow(tr("Context"), m_context);
    figures->addRow(tr("Memory (process / KV cache)"), m_memory);
    m_run->setObjectName(QStringLiteral("runBenchmark"));
    m_cancel->setObjectName(QStringLiteral("cancelBenchmark"));
    m_cancel->hide();
    m_progress->setObjectName(QStringLiteral("benchmarkProgress"));
    m_progress->setRange(0, 100);
    m_progress->hide();
    auto* benchmark = new QHBoxLayout;
    benchmark->addWidget(m_run);
    benchmark->addWidget(m_progress, 1);
    benchmark->addWidget(m_cancel);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(figures);
    layout->addWidget(new QLabel(tr("Tokens per second")));
    layout->addWidget(m_rate, 2);
    layout->addWidget(new QLabel(tr("Per-token latency, last answer")));
    layout->addWidget(m_histogram, 1);
    layout->addWidget(new QLabel(tr("Past answers")));
    layout->addWidget(m_generations, 2);
    layout->addLayout(benchmark);
    layout->addWidget(m_benchmarks, 1);

    // Names and figures wrap rather than widen the dock (a narrow window's third column).
    for (auto* label : findChildren<QLabel*>(Qt::FindDirectChildrenOnly)) label->setWordWrap(true);

    m_frame.setSingleShot(true);
    m_frame.setInterval(16);
    connect(&m_frame, &QTimer::timeout, this, &PerformanceDashboard::redraw);
    m_memory_timer.setInterval(1000);
    connect(&m_memory_timer, &QTimer::timeout, this, &PerformanceDashboard::update_memory);
    m_memory_timer.start();
    connect(m_run, &QPushButton::clicked, this, [this] {
        m_run->setEnabled(false);
        m_cancel->show();
        m_progress->setValue(0);
        m_progress->show();
        emit runBenchmarkRequested();
    });
    connect(m_cancel, &QPushButton::clicked, this, &PerformanceDashboard::cancelBenchmarkRequested);
    update_memory();
}

void PerformanceDashboard::set_history(core::HistoryStore* history) {
    m_history = history;
    refresh_tables();
}

// Below the answer's figures and charts, as one more section of the same kind.
void PerformanceDashboard::set_server_status(const core::ServerStatus& status) {
    if (m_server != nullptr) return;  // shown already
    m_server = new QWidget;
    m_server->setObjectName(QStringLiteral("serverSection"));
    auto* section = new QVBoxLayout(m_server);
    section->setContentsMargins(0, 0, 0, 0);
    section->addWidget(new QLabel(tr("API server")));
    m_server_load = new ServerLoadView(status, ServerLoadView::Chart::TokensPerSecond);
    section->addWidget(m_server_load);
    auto* layout = static_cast<QVBoxLayout*>(this->layout());
    layout->insertWidget(layout->indexOf(m_histogram) + 1, m_server, 1);
    const auto show_while_running = [this, &status] {
        m_server->setVisible(status.state().phase != core::ServerPhase::Stopped);
    };
    connect(&status, &core::ServerStatus::stateChanged, m_server, show_while_running);
    show_while_running();
}

void PerformanceDashboard::set_model(const ModelInfo& info, int context_length) {
    m_kv_bytes = info.kv_bytes(context_length);
    m_context_length = context_length;
    m_remote = false;
    update_memory();
}

void PerformanceDashboard::set_remote() {
    m_remote = true;
    m_kv_bytes = 0;
    m_context_length = 0;
    update_memory();
}

void PerformanceDashboard::generation_started(int context_length) {
    m_context_length = m_remote ? 0 : context_length;  // the window's is the local model's
    m_times.clear();
    m_rate->set_values({}, {});
    m_first_token->setText(QStringLiteral("–"));  // not the previous answer's
    update_memory();
}

void PerformanceDashboard::add_chunk(const TokenChunk& chunk) {
    // The first token's time since the request began is the answer's time to first token.
    if (m_times.empty() && !chunk.token_times_ns.empty())
        m_first_token->setText(first_token_text(chunk.token_times_ns.front()));
    m_times.insert(m_times.end(), chunk.token_times_ns.begin(), chunk.token_times_ns.end());
    if (!m_frame.isActive()) m_frame.start();
}

void PerformanceDashboard::redraw() {
    ++m_redraws;
    auto rates = core::per_token_rates(m_times);
    auto average = core::moving_average(rates, kAverageWindow);
    m_tokens->setText(QString::number(m_times.size()));
    if (!average.empty()) m_decode->setText(tr("%1 tok/s").arg(average.back(), 0, 'f', 1));
    m_rate->set_values(std::move(rates), std::move(average));
}

void PerformanceDashboard::generation_finished(const GenerationStats& stats, bool remote) {
    m_frame.stop();
    m_times = stats.token_times_ns;
    redraw();
    m_first_token->setText(first_token_text(stats.time_to_first_token_ns));
    m_prefill->setText(remote ? remote_prompt_text(stats)
                              : tr("%1 tokens at %2 tok/s (%3 reused)")
                                    .arg(stats.prefilled_tokens)
                                    .arg(stats.prefill_tokens_per_second(), 0, 'f', 1)
                                    .arg(stats.cached_tokens));
    m_tokens->setText(QString::number(stats.generated_tokens));
    m_decode->setText(tr("%1 tok/s").arg(stats.decode_tokens_per_second(), 0, 'f', 1));
    m_prompt_tokens = stats.prompt_tokens + stats.generated_tokens;
    m_histogram->set_histogram(
        core::histogram(core::token_latencies_ms(stats.token_times_ns), kHistogramBins));
    update_memory();
    refresh_tables();
}

void PerformanceDashboard::update_memory() {
    const QString resident = byte_size_text(resident_bytes());
    if (m_remote) {
        m_memory->setText(tr("%1 / KV cache on the remote engine, not reported").arg(resident));
        m_context->setText(tr("%1 tokens (the remote engine does not report its context size)")
                               .arg(m_prompt_tokens));
        return;
    }
    m_memory->setText(QStringLiteral("%1 / %2").arg(resident, byte_size_text(m_kv_bytes)));
    m_context->setText(m_context_length > 0
                           ? tr("%1 of %2 tokens").arg(m_prompt_tokens).arg(m_context_length)
                           : QStringLiteral("–"));
}

void PerformanceDashboard::refresh_tables() {
    if (m_history == nullptr) return;
    const auto generations = m_history->generations(200);
    m_generations->setRowCount(static_cast<int>(generations.size()));
    for (size_t row = 0; row < generations.size(); ++row) {
        const auto& item = generations[row];
        set_row(
            m_generations, static_cast<int>(row),
            {when(item.created_ms),
             item.remote_model.isEmpty() ? QFileInfo(item.model_file).fileName()
                                         : remote_source_text(item.remote_model, item.connection),
             item.backend, QString::number(item.stats.generated_tokens),
             QString::number(item.stats.decode_tokens_per_second(), 'f', 1),
             tr("%1 ms").arg(item.stats.time_to_first_token_ns / 1e6, 0, 'f', 0)});
    }
    const auto benchmarks = m_history->benchmarks(50);
    m_benchmarks->setRowCount(static_cast<int>(benchmarks.size()));
    for (size_t row = 0; row < benchmarks.size(); ++row) {
        const auto& item = benchmarks[row];
        set_row(m_benchmarks, static_cast<int>(row),
                {when(item.created_ms), QFileInfo(item.model_file).fileName(), item.machine,
                 QString::number(item.prompt_tokens_per_second, 'f', 1),
                 QString::number(item.generation_tokens_per_second, 'f', 1), item.build});
    }
}

void PerformanceDashboard::show_benchmark_progress(int percent) {
    m_progress->setValue(percent);
}

void PerformanceDashboard::show_benchmark(const core::BenchmarkResult& result) {
    m_run->setEnabled(true);
    m_cancel->hide();
    m_progress->hide();
    if (m_history != nullptr) m_history->save_benchmark(result);
    refresh_tables();
}

void PerformanceDashboard::benchmark_failed(const QString&) {
    m_run->setEnabled(true);
    m_cancel->hide();
    m_progress->hide();
}

}  // namespace hearth::ui
