// Two small charts drawn with QPainter (lighter than Qt Charts, and nothing to install): a line
// chart of tokens/s with its moving average, and a bar chart of per-token latencies.
#pragma once

#include <QWidget>

#include <vector>

#include "app/core/token_rate.h"

namespace hearth::ui {

class RateChart final : public QWidget {
public:
    explicit RateChart(QWidget* parent = nullptr);
    // What the empty chart says, and the legend under a drawn one (%1: the latest average).
    void set_captions(QString empty, QString legend);
    void set_values(std::vector<double> rates, std::vector<double> average);
    size_t point_count() const { return m_rates.size(); }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<double> m_rates, m_average;
    QString m_empty, m_legend;
};

class HistogramChart final : public QWidget {
public:
    explicit HistogramChart(QWidget* parent = nullptr);
    void set_histogram(core::Histogram histogram);
    const core::Histogram& histogram() const { return m_histogram; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    core::Histogram m_histogram;
};

}  // namespace hearth::ui
