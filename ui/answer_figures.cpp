#include "ui/answer_figures.h"

#include <QCoreApplication>
#include <QStringList>

namespace hearth::ui {
namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("AnswerFigures", text);
}

// Whole milliseconds, with a tenth below 10 ms (a continued answer's first token can take less
// than one).
QString milliseconds(int64_t nanoseconds) {
    const double ms = static_cast<double>(nanoseconds) / 1e6;
    return QString::number(ms, 'f', ms < 10 ? 1 : 0);
}

// Tokens, their rate and the first token's time: what the finished figures and the streaming
// status share.
QStringList speed_figures(int tokens, double tokens_per_second, int64_t first_token_ns) {
    QStringList figures{tr("%1 tokens").arg(tokens)};
    if (tokens_per_second > 0) figures << tr("%1 tok/s").arg(tokens_per_second, 0, 'f', 1);
    if (tokens > 0) figures << tr("first token in %1 ms").arg(milliseconds(first_token_ns));
    return figures;
}

}  // namespace

QString stop_reason_text(StopReason reason) {
    switch (reason) {
        case StopReason::EndOfGeneration:
            return tr("ended by the model");
        case StopReason::MaxTokens:
            return tr("cut off at the token limit");
        case StopReason::Cancelled:
            return tr("stopped");
        case StopReason::ContextFull:
            return tr("stopped: the context is full");
        case StopReason::StopString:
            return tr("ended at a stop text");
        case StopReason::DocumentComplete:
            return tr("the JSON document is complete");
        case StopReason::NoValidToken:
            return tr("stopped: no token could continue the JSON document");
    }
    return {};
}

QString remote_source_text(const QString& model, const QString& connection) {
    return tr("%1 · on %2").arg(model, connection);
}

QString answer_figures_text(const core::GenerationRecord& record) {
    const QString figures = answer_figures_text(record.stats);
    if (!record.remote()) return figures;
    return remote_source_text(record.remote_model, record.connection) + QStringLiteral(" · ") +
           figures;
}

QString answer_figures_text(const GenerationStats& stats) {
    QStringList figures = speed_figures(stats.generated_tokens, stats.decode_tokens_per_second(),
                                        stats.time_to_first_token_ns);
    figures << tr("%1 of %2 prompt tokens reused").arg(stats.cached_tokens).arg(stats.prompt_tokens)
            << stop_reason_text(stats.stop_reason);
    return figures.join(QStringLiteral(" · "));
}

QString thinking_progress_text(int tokens) {
    return tokens > 0 ? tr("Thinking… %1 tokens").arg(tokens) : tr("Thinking…");
}

QString thinking_summary_text(int tokens, int64_t nanoseconds) {
    QStringList figures;
    if (nanoseconds > 0)
        figures << tr("Thought for %1 s").arg(static_cast<double>(nanoseconds) / 1e9, 0, 'f', 1);
    else
        figures << tr("Thoughts");
    if (tokens > 0) figures << tr("%1 tokens").arg(tokens);
    return figures.join(QStringLiteral(" · "));
}

void AnswerProgress::prompt_laid_out(const GenerationStats& prompt) {
    m_prompt_in_cache = prompt.prompt_tokens - prompt.dropped_tokens;
    m_tokens_in_prompt = m_tokens;
}

void AnswerProgress::add(const TokenChunk& chunk) {
    if (chunk.token_times_ns.empty()) return;
    if (m_first_ns < 0) m_first_ns = chunk.token_times_ns.front();
    m_last_ns = chunk.token_times_ns.back();
    m_tokens += static_cast<int>(chunk.token_times_ns.size());
    m_reasoning_tokens += chunk.reasoning_tokens;
    if (!chunk.text.empty()) m_answering = true;
}

QString AnswerProgress::status_text() const {
    const double rate = m_last_ns > m_first_ns
                            ? (m_tokens - 1) * 1e9 / static_cast<double>(m_last_ns - m_first_ns)
                            : 0.0;
    return (thinking() ? tr("Thinking…: %1") : tr("Writing the answer: %1"))
        .arg(speed_figures(m_tokens, rate, m_first_ns).join(QStringLiteral(" · ")));
}

}  // namespace hearth::ui
