// The in-process API server's load, live: rows busy of all its rows, requests waiting for one,
// requests served and tokens per second, as the server reports them (once a second); with the
// chart, tokens per second over the last two minutes. The Server page shows the figures, the
// dashboard the figures and the chart.
#pragma once

#include <QWidget>

#include <deque>

#include "app/core/server_status.h"
#include "ui/chart_view.h"

class QLabel;

namespace hearth::ui {

class ServerLoadView final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerLoadView)

public:
    enum class Chart { None, TokensPerSecond };
    // `status` must outlive the view.
    ServerLoadView(const core::ServerStatus& status, Chart chart, QWidget* parent = nullptr);

    const RateChart* chart() const { return m_chart; }  // nullptr without one

private:
    void show_figures();
    void add_sample();
    void restart_chart();

    const core::ServerStatus& m_status;
    QLabel *m_rows, *m_queue, *m_served, *m_rate;
    RateChart* m_chart = nullptr;
    std::deque<double> m_samples;  // tokens/s, one per report, the latest last
};

}  // namespace hearth::ui
