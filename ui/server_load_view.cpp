#include "ui/server_load_view.h"

#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "app/core/token_rate.h"

namespace hearth::ui {
namespace {

constexpr size_t kChartSamples = 120;  // two minutes of reports
constexpr int kAverageSamples = 5;

QLabel* figure(const char* name, const QString& tip) {
    auto* label = new QLabel(QStringLiteral("–"));
    label->setObjectName(QLatin1String(name));
    label->setToolTip(tip);
    return label;
}

}  // namespace

ServerLoadView::ServerLoadView(const core::ServerStatus& status, Chart chart, QWidget* parent)
    : QWidget(parent),
      m_status(status),
      m_rows(figure("serverRowsBusy",
                    tr("Requests being answered now, of the most the server answers at once "
                       "(its rows)."))),
      m_queue(figure("serverQueue", tr("Requests waiting for a free row."))),
      m_served(
          figure("serverServed", tr("Requests the server has finished since it started, answered, "
                                    "stopped by their client or failed."))),
      m_rate(figure("serverRate",
                    tr("Tokens the server generated per second over the last few seconds, "
                       "all requests together."))) {
    setObjectName(QStringLiteral("serverLoad"));
    setAccessibleName(tr("API server load"));
    auto* figures = new QFormLayout;
    figures->addRow(tr("Rows busy"), m_rows);
    figures->addRow(tr("Queued"), m_queue);
    figures->addRow(tr("Requests served"), m_served);
    figures->addRow(tr("Generating"), m_rate);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(figures);
    if (chart == Chart::TokensPerSecond) {
        m_chart = new RateChart;
        m_chart->setObjectName(QStringLiteral("serverRateChart"));
        m_chart->setAccessibleName(tr("API server tokens per second"));
        m_chart->setToolTip(
            tr("The server's tokens per second, one point a second, with the "
               "average of five in bold."));
        m_chart->set_captions(tr("the server's tokens/s appear here while it runs"),
                              tr("%1 tok/s (average of 5 s)"));
        layout->addWidget(m_chart, 1);
    }
    connect(&status, &core::ServerStatus::countersChanged, this, [this] {
        show_figures();
        add_sample();
    });
    connect(&status, &core::ServerStatus::stateChanged, this, [this] {
        restart_chart();
        show_figures();
    });
    show_figures();
}

void ServerLoadView::show_figures() {
    const auto& counters = m_status.counters();
    if (!m_status.running() || counters.rows == 0) {  // stopped, or no report yet
        for (QLabel* label : {m_rows, m_queue, m_served, m_rate})
            label->setText(QStringLiteral("–"));
        return;
    }
    m_rows->setText(tr("%1 of %2").arg(counters.rows_busy).arg(counters.rows));
    m_queue->setText(QString::number(counters.queue_depth));
    m_served->setText(QString::number(counters.requests_finished));
    m_rate->setText(tr("%1 tok/s").arg(counters.tokens_per_second, 0, 'f', 1));
}

void ServerLoadView::add_sample() {
    if (m_chart == nullptr || !m_status.running()) return;
    m_samples.push_back(m_status.counters().tokens_per_second);
    if (m_samples.size() > kChartSamples) m_samples.pop_front();
    std::vector<double> samples(m_samples.begin(), m_samples.end());
    auto average = core::moving_average(samples, kAverageSamples);
    m_chart->set_values(std::move(samples), std::move(average));
}

// A new run starts a new line.
void ServerLoadView::restart_chart() {
    if (m_status.state().phase != core::ServerPhase::Starting) return;
    m_samples.clear();
    if (m_chart != nullptr) m_chart->set_values({}, {});
}

}  // namespace hearth::ui
