#include "ui/chart_view.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace hearth::ui {
namespace {

constexpr int kMargin = 28;

QPainterPath line(const std::vector<double>& values, double maximum, const QRectF& area) {
    QPainterPath path;
    for (size_t i = 0; i < values.size(); ++i) {
        const double x =
            area.left() + area.width() * static_cast<double>(i) /
                              static_cast<double>(std::max<size_t>(values.size() - 1, 1));
        const double y = area.bottom() - area.height() * std::min(values[i] / maximum, 1.0);
        if (i == 0)
            path.moveTo(x, y);
        else
            path.lineTo(x, y);
    }
    return path;
}

}  // namespace

RateChart::RateChart(QWidget* parent)
    : QWidget(parent),
      m_empty(tr("tokens/s appear here while an answer streams")),
      m_legend(tr("%1 tok/s (average of 16)")) {
    setObjectName(QStringLiteral("rateChart"));
    setAccessibleName(tr("Tokens per second"));
    setMinimumHeight(120);
}

void RateChart::set_captions(QString empty, QString legend) {
    m_empty = std::move(empty);
    m_legend = std::move(legend);
    update();
}

void RateChart::set_values(std::vector<double> rates, std::vector<double> average) {
    m_rates = std::move(rates);
    m_average = std::move(average);
    update();
}

void RateChart::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    if (m_rates.empty()) {
        const QRectF area(kMargin, 8, width() - kMargin - 8, height() - 24);
        painter.setPen(palette().color(QPalette::Mid));
        painter.drawRect(area);
        painter.drawText(area, Qt::AlignCenter, m_empty);
        return;
    }
    // The scale follows the average, so one very fast token does not flatten the chart.
    const double top = std::max(1.0, *std::max_element(m_average.begin(), m_average.end()) * 1.5);
    // The margin widens for a scale of more digits (a server's thousands of tokens/s).
    const QString scale = QString::number(top, 'f', 0);
    const int margin = std::max(kMargin, fontMetrics().horizontalAdvance(scale) + 6);
    const QRectF area(margin, 8, width() - margin - 8, height() - 24);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(area);
    painter.setPen(QPen(palette().color(QPalette::Mid), 1));
    painter.drawPath(line(m_rates, top, area));
    painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
    painter.drawPath(line(m_average, top, area));
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRectF(0, 0, margin - 2, 16), Qt::AlignRight, scale);
    painter.drawText(QRectF(area.left(), area.bottom() + 2, area.width(), 16), Qt::AlignRight,
                     m_legend.arg(m_average.back(), 0, 'f', 1));
}

HistogramChart::HistogramChart(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("latencyHistogram"));
    setAccessibleName(tr("Per-token latency histogram"));
    setMinimumHeight(100);
}

void HistogramChart::set_histogram(core::Histogram histogram) {
    m_histogram = std::move(histogram);
    update();
}

void HistogramChart::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QRectF area(kMargin, 8, width() - kMargin - 8, height() - 24);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(area);
    const auto& counts = m_histogram.counts;
    const int most = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
    if (most == 0) {
        painter.drawText(area, Qt::AlignCenter, tr("per-token latency of the last answer"));
        return;
    }
    const double bar = area.width() / static_cast<double>(counts.size());
    for (size_t i = 0; i < counts.size(); ++i) {
        const double height = area.height() * counts[i] / most;
        painter.fillRect(QRectF(area.left() + bar * static_cast<double>(i) + 1,
                                area.bottom() - height, bar - 2, height),
                         palette().color(QPalette::Highlight));
    }
    painter.setPen(palette().color(QPalette::Text));
    const double high = m_histogram.low + m_histogram.width * static_cast<double>(counts.size());
    painter.drawText(QRectF(area.left(), area.bottom() + 2, area.width(), 16), Qt::AlignLeft,
                     tr("%1 ms").arg(m_histogram.low, 0, 'f', 2));
    painter.drawText(QRectF(area.left(), area.bottom() + 2, area.width(), 16), Qt::AlignRight,
                     tr("%1 ms").arg(high, 0, 'f', 2));
}

}  // namespace hearth::ui
