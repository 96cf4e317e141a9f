// The window's answers: asked (send, regenerate, edit and resend, continue), streamed into the
// message and the status line, finished or failed; the context meter.
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QRandomGenerator>
#include <QTimer>

#include "app/core/continued_answer.h"
#include "app/core/conversation_request.h"
#include "app/phrasing/notice_text.h"
#include "engine/compute/backend_factory.h"
#include "ui/chat_view.h"
#include "ui/main_window.h"
#include "ui/message_widget.h"
#include "ui/model_header.h"
#include "ui/performance_dashboard.h"
#include "ui/prompt_edit.h"

namespace hearth::ui {
namespace {

QString title_from(const QString& text) {
    QString line = text.section('\n', 0, 0).simplified();
    return line.size() > 40 ? line.left(39) + QStringLiteral("…") : line;
}

}  // namespace

void MainWindow::refresh() {
    core::Conversation* conversation = current_conversation();
    if (conversation == nullptr) return;
    const bool empty = conversation->messages().empty();
    m_welcome->setVisible(empty);
    m_chat->setVisible(!empty);
    const bool streaming_here = m_streaming_conversation == conversation->id();
    m_chat->show_conversation(*conversation, streaming_here ? m_streaming_message : -1);
    int used = 0;
    for (const int id : conversation->thread()) {
        const core::Message* message = conversation->find(id);
        if (message->generation) {
            used = message->generation->stats.prompt_tokens +
                   message->generation->stats.generated_tokens;
        }
    }
    show_context(used);
}

int MainWindow::context_length(const core::Conversation& conversation) const {
    if (conversation.settings().context_length > 0) return conversation.settings().context_length;
    return m_model_context > 0 ? m_model_context : kDefaultContextCap;
}

void MainWindow::show_context(int used) {
    const core::Conversation* conversation = const_cast<MainWindow*>(this)->current_conversation();
    if (m_remote) {
        // The API does not report the server's context size: the local model's is no measure.
        m_context_meter->setRange(0, 1);
        m_context_meter->setValue(0);
        m_context_meter->setFormat(
            tr("context %1 tokens (the remote engine does not report its size)").arg(used));
        return;
    }
    m_context_meter->setFormat(tr("context %v / %m tokens"));
    const int capacity = conversation != nullptr ? context_length(*conversation) : 1;
    m_context_meter->setRange(0, capacity);
    m_context_meter->setValue(std::min(used, capacity));
}

void MainWindow::send() {
    const QString text = m_prompt->toPlainText().trimmed();
    core::Conversation* conversation = current_conversation();
    if (text.isEmpty() || conversation == nullptr || generating()) return;
    if (!m_model_ready) {
        showError(tr("Load a model first (Models…)."));
        return;
    }
    m_prompt->clear();
    if (conversation->messages().empty()) {
        conversation->set_title(title_from(text));
        ensure_stored(*conversation);
        refresh_list();
    }
    const int user = conversation->add(conversation->leaf(), QStringLiteral("user"), text);
    save_message(*conversation, user);
    start_answer(*conversation, user);
}

void MainWindow::regenerate(int answer_id) {
    core::Conversation* conversation = current_conversation();
    if (conversation == nullptr || generating() || !m_model_ready) return;
    const core::Message* answer = conversation->find(answer_id);
    if (answer == nullptr) return;
    start_answer(*conversation, answer->parent);
}

void MainWindow::resend(int user_id, const QString& text) {
    core::Conversation* conversation = current_conversation();
    if (conversation == nullptr || generating() || !m_model_ready) return;
    const core::Message* old = conversation->find(user_id);
    if (old == nullptr) return;
    const int user = conversation->add(old->parent, QStringLiteral("user"), text);
    save_message(*conversation, user);
    start_answer(*conversation, user);
}

// Adds an empty answer under `user_id` and asks for it, with the thread up to that message.
void MainWindow::start_answer(core::Conversation& conversation, int user_id) {
    ensure_stored(conversation);
    // Not down to the newest answer: a regenerated answer must not be shown the one it replaces.
    conversation.show_thread_to(user_id);
    const ChatRequest request = core::chat_request(conversation);
    m_continued_from.reset();
    stream_answer(conversation, conversation.add(user_id, QStringLiteral("assistant"), {}, false),
                  request);
}

void MainWindow::continueAnswer(int answer_id) {
    core::Conversation* conversation = current_conversation();
    if (conversation == nullptr || generating() || !m_model_ready) return;
    core::Message* answer = conversation->find(answer_id);
    if (answer == nullptr || !core::can_continue(*answer)) return;
    conversation->show_thread_to(answer_id);
    m_continued_from = answer->generation->stats;
    answer->finished = false;
    stream_answer(*conversation, answer_id, core::continue_request(*conversation));
}

// Asks for `request` and streams the answer into message `answer_id`.
void MainWindow::stream_answer(core::Conversation& conversation, int answer_id,
                               ChatRequest request) {
    // The seed is chosen here so the history can say which one made the answer.
    if (request.fresh_seed) {
        request.sampler.seed = QRandomGenerator::global()->generate64();
        request.fresh_seed = false;
    }
    m_streaming_sampler = request.sampler;
    m_streaming_remote = m_remote;
    m_streaming_conversation = conversation.id();
    m_streaming_message = answer_id;
    save_message(conversation, m_streaming_message);
    m_saver = std::make_unique<core::StreamingSaver>(m_history, conversation.id());
    m_progress = {};
    m_dashboard->generation_started(context_length(conversation));
    set_generating(true);
    refresh();
    m_status->setText(
        m_remote
            ? tr("Asking %1…").arg(remote_source_text(m_remote->model, m_remote->connection.name))
            : tr("Thinking…"));
    emit generateRequested(request);
}

void MainWindow::step_branch(int id, int step) {
    core::Conversation* conversation = current_conversation();
    if (conversation == nullptr || generating()) return;
    const auto siblings = conversation->siblings(id);
    const auto at = std::find(siblings.begin(), siblings.end(), id) - siblings.begin();
    const auto target = at + step;
    if (target < 0 || target >= static_cast<long>(siblings.size())) return;
    conversation->show_branch(siblings[static_cast<size_t>(target)]);
    refresh();
}

void MainWindow::set_generating(bool generating) {
    m_send->setEnabled(!generating);
    m_stop->setEnabled(generating);
}

void MainWindow::showGenerationStarted(int conversation_id, const hearth::GenerationStats& prompt) {
    if (conversation_id != m_streaming_conversation) return;
    m_progress.prompt_laid_out(prompt);
    if (conversation_id == m_current) show_context(m_progress.context_used());
}

void MainWindow::showPrefillProgress(int conversation_id, int done, int total) {
    if (conversation_id != m_streaming_conversation || total <= 0) return;
    m_status->setText(tr("Reading the conversation: %1 of %2 tokens…").arg(done).arg(total));
}

void MainWindow::appendChunk(int conversation_id, const hearth::TokenChunk& chunk) {
    if (conversation_id != m_streaming_conversation) return;
    core::Conversation* conversation = conversation_by_id(conversation_id);
    core::Message* message = conversation ? conversation->find(m_streaming_message) : nullptr;
    if (message == nullptr) return;
    message->text += QString::fromStdString(chunk.text);
    message->reasoning += QString::fromStdString(chunk.reasoning);
    if (m_saver) m_saver->update(*message);
    m_dashboard->add_chunk(chunk);
    m_progress.add(chunk);
    if (!m_progress_frame->isActive()) m_progress_frame->start();
    if (conversation_id == m_current) {
        if (auto* widget = m_chat->streaming_widget()) widget->append_streamed(chunk);
    }
}

// Once per frame at most: a progress bar repaints at once whenever its value changes, which at
// thousands of tokens a second would stall the window.
void MainWindow::show_progress() {
    if (!generating()) return;
    m_status->setText(m_progress.status_text());
    if (m_streaming_conversation == m_current) show_context(m_progress.context_used());
}

void MainWindow::finishGeneration(int conversation_id, const hearth::GenerationResult& result) {
    if (conversation_id != m_streaming_conversation) return;
    core::Conversation* conversation = conversation_by_id(conversation_id);
    // A continued answer's figures count both its parts, in the status line as under it.
    const GenerationStats answer =
        m_continued_from ? core::continued_stats(*m_continued_from, result.stats) : result.stats;
    if (core::Message* message = conversation ? conversation->find(m_streaming_message) : nullptr) {
        end_answer(*message, answer, result.stats.stop_reason != StopReason::Cancelled);
        m_dashboard->generation_finished(result.stats, m_streaming_remote.has_value());
    }
    leave_streaming();
    QString summary = answer_figures_text(answer);
    if (!result.notices.empty())
        summary += QStringLiteral("\n") + QString::fromStdString(notices_text(result.notices));
    m_status->setText(summary);
    if (conversation_id == m_current) refresh();
}

core::GenerationRecord MainWindow::answer_record(const GenerationStats& stats) const {
    core::GenerationRecord record;
    record.seed = m_streaming_sampler.seed;
    record.sampler = m_streaming_sampler;
    record.stats = stats;
    if (m_streaming_remote) {
        record.backend = QStringLiteral("remote");
        record.connection = m_streaming_remote->connection.name;
        record.connection_url = m_streaming_remote->connection.base_url;
        record.remote_model = m_streaming_remote->model;
        return record;
    }
    record.model_file = m_model_path;
    record.model_sha256 = m_model_sha256;
    record.backend = m_backend_name.isEmpty() ? m_settings.backend : m_backend_name;
    return record;
}

void MainWindow::end_answer(core::Message& message, const GenerationStats& stats, bool finished) {
    message.generation = answer_record(stats);
    message.finished = finished;
    if (m_saver) m_saver->finish(message);
    report_history_problem();
}

void MainWindow::leave_streaming() {
    m_streaming_conversation = m_streaming_message = -1;
    m_streaming_remote.reset();
    m_continued_from.reset();
    set_generating(false);
}

void MainWindow::failAnswer(int conversation_id, const QString& message) {
    if (conversation_id == m_streaming_conversation) {
        // The answer that failed stays as it is, marked unfinished.
        core::Conversation* conversation = conversation_by_id(conversation_id);
        if (core::Message* answer =
                conversation ? conversation->find(m_streaming_message) : nullptr;
            answer && m_saver) {
            m_saver->finish(*answer);
        }
        leave_streaming();
        refresh();
    }
    m_status->setText(tr("Error: %1").arg(message));
}

void MainWindow::showError(const QString& message) {
    m_status->setText(tr("Error: %1").arg(message));
}

}  // namespace hearth::ui
