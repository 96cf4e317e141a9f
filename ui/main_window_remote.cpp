// What a remote engine changes in the window: choosing one (the header says where answers come
// from) and its answers that fail part-way (kept, marked unfinished, the cause said).
#include <QLabel>

#include <utility>

#include <algorithm>

#include "app/core/continued_answer.h"
#include "ui/answer_figures.h"
#include "ui/main_window.h"
#include "ui/model_header.h"
#include "ui/performance_dashboard.h"

namespace hearth::ui {
namespace {

// What `partial` holds beyond what `answer` shows (both began empty).
TokenChunk unshown_part(const core::Message& answer, const GenerationResult& partial) {
    const auto rest = [](const QString& shown, const std::string& arrived) {
        const QString whole = QString::fromStdString(arrived);
        return whole.startsWith(shown) ? whole.mid(shown.size()).toStdString() : std::string();
    };
    TokenChunk chunk;
    chunk.text = rest(answer.text, partial.text);
    chunk.reasoning = rest(answer.reasoning, partial.reasoning);
    return chunk;
}

}  // namespace

void MainWindow::use_remote(const core::RemoteChoice& choice) {
    m_status->setText(
        tr("Switching to %1…").arg(remote_source_text(choice.model, choice.connection.name)));
    emit useRemoteRequested(choice);
}

bool MainWindow::restore_remote(const QString& fallback_model) {
    if (m_settings.remote_connection.isEmpty()) return false;
    const auto& connections = m_settings.connections;
    const auto found =
        std::ranges::find(connections, m_settings.remote_connection, &core::RemoteConnection::name);
    if (found == connections.end()) {
        forget_saved_remote(tr("The connection '%1' that answered last time no longer exists.")
                                .arg(m_settings.remote_connection));
        return false;
    }
    m_remote_fallback = fallback_model;
    use_remote({.connection = *found, .model = m_settings.remote_model});
    return true;
}

bool MainWindow::fall_back_from_remote(const QString& message) {
    if (!m_remote_fallback) return false;
    const QString fallback = *std::exchange(m_remote_fallback, std::nullopt);
    forget_saved_remote(tr("The connection '%1' that answered last time cannot be used: %2")
                            .arg(m_settings.remote_connection, message));
    if (!fallback.isEmpty()) load_model(fallback);
    return true;
}

void MainWindow::showRemoteRefused(const QString& message) {
    if (!fall_back_from_remote(message)) showError(message);
}

void MainWindow::forget_saved_remote(const QString& why) {
    // Said as a load failure is, so the local model's heading keeps the notice.
    m_load_failure = why;
    m_falling_back = true;
    m_header->show_notice(m_load_failure);
    m_settings.remote_connection.clear();
    m_settings.remote_model.clear();
}

void MainWindow::showRemote(const core::RemoteChoice& choice) {
    m_remote_fallback.reset();
    m_remote = choice;
    m_settings.remote_connection = choice.connection.name;  // it answers after a restart too
    m_settings.remote_model = choice.model;
    m_model_ready = true;
    m_header->hide_load_progress();
    m_header->show_model(
        remote_source_text(choice.model, choice.connection.name),
        tr("A remote engine at %1 answers; each message sends it the whole conversation.")
            .arg(choice.connection.base_url));
    m_header->show_notice({});
    m_dashboard->set_remote();
    // The welcome would speak of the local model (or of none loaded); a local load restores it.
    m_welcome->setText(tr("Welcome to Hearth. Answers come from %1, a remote engine at %2. Write "
                          "a message below to start a chat.")
                           .arg(remote_source_text(choice.model, choice.connection.name),
                                choice.connection.base_url));
    m_status->setText(tr("%1 answers from now on.")
                          .arg(remote_source_text(choice.model, choice.connection.name)));
    refresh();
}

void MainWindow::failGeneration(int conversation_id, const hearth::GenerationResult& partial,
                                const QString& message) {
    if (conversation_id != m_streaming_conversation) return;
    core::Conversation* conversation = conversation_by_id(conversation_id);
    if (core::Message* answer = conversation ? conversation->find(m_streaming_message) : nullptr) {
        // Events read together with the failure never reached the window: they come now.
        const TokenChunk unshown = unshown_part(*answer, partial);
        if (!m_continued_from && !unshown.empty()) appendChunk(conversation_id, unshown);
        GenerationStats stats = m_continued_from
                                    ? core::continued_stats(*m_continued_from, partial.stats)
                                    : partial.stats;
        stats.stop_reason = StopReason::Cancelled;  // it ended before the answer did
        end_answer(*answer, stats, false);
        m_dashboard->generation_finished(partial.stats, true);
    }
    leave_streaming();
    m_status->setText(tr("Error: %1").arg(message));
    if (conversation_id == m_current) refresh();
}

}  // namespace hearth::ui
