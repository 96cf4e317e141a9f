// The window's conversations: new ones, kept in the history, renamed, deleted and undone,
// searched, exported and imported.
#include <QFile>
#include <QFileDialog>
#include <QLabel>

#include "app/core/conversation_export.h"
#include "app/core/history_json.h"
#include "ui/chat_view.h"
#include "ui/conversation_sidebar.h"
#include "ui/main_window.h"
#include "ui/message_widget.h"
#include "ui/performance_dashboard.h"
#include "ui/prompt_edit.h"

namespace hearth::ui {

core::Conversation* MainWindow::conversation_by_id(int id) {
    for (auto& conversation : m_conversations) {
        if (conversation->id() == id) return conversation.get();
    }
    return nullptr;
}

core::Conversation* MainWindow::current_conversation() {
    return conversation_by_id(m_current);
}

// An empty chat already listed is the new one (brought to the top): pressing New chat again,
// or in a chat with nothing said yet, does not pile up "New chat" entries.
void MainWindow::newConversation() {
    const auto empty = std::find_if(m_conversations.begin(), m_conversations.end(),
                                    [](const auto& c) { return c->messages().empty(); });
    if (empty != m_conversations.end()) {
        std::rotate(m_conversations.begin(), empty, empty + 1);
        m_current = m_conversations.front()->id();
        refresh_list();
        refresh();
    } else {
        auto conversation = std::make_unique<core::Conversation>(0, tr("New chat"));
        if (auto* current = current_conversation()) conversation->settings() = current->settings();
        // The system prompt is the one the settings name for new chats, not the open chat's.
        conversation->settings().system_prompt =
            core::preset_text(m_settings.system_prompts, m_settings.new_chat_prompt);
        add_conversation(std::move(conversation), true);
    }
    m_prompt->setFocus();
}

// Gives the conversation its id (the history's, or an in-memory one when the history cannot
// take it), lists it and shows it.
void MainWindow::add_conversation(std::unique_ptr<core::Conversation> conversation, bool front) {
    conversation->set_id(m_next_conversation++);
    m_current = conversation->id();
    auto* shown = conversation.get();
    m_conversations.insert(front ? m_conversations.begin() : m_conversations.end(),
                           std::move(conversation));
    if (!shown->messages().empty()) ensure_stored(*shown);
    refresh_list();
    refresh();
}

void MainWindow::ensure_stored(core::Conversation& conversation) {
    if (m_history == nullptr || in_history(conversation)) return;
    const int id = m_history->create(conversation);
    report_history_problem();
    if (id == 0) return;
    if (m_current == conversation.id()) m_current = id;
    conversation.set_id(id);
    m_stored.insert(id);
    for (const auto& message : conversation.messages()) save_message(conversation, message.id);
}

void MainWindow::set_history(core::HistoryStore* history) {
    m_history = history;
    m_dashboard->set_history(history);
    m_conversations.clear();
    m_current = -1;
    for (const auto& entry : history->conversations()) {
        if (auto loaded = history->load(entry.id)) {
            m_stored.insert(entry.id);
            m_conversations.push_back(std::make_unique<core::Conversation>(std::move(*loaded)));
        }
    }
    report_history_problem();
    show_first_conversation();
}

// Shows the conversation at the top of the list, or a new one when none is left.
void MainWindow::show_first_conversation() {
    if (m_conversations.empty()) {
        newConversation();
        return;
    }
    m_current = m_conversations.front()->id();
    refresh_list();
    refresh();
}

void MainWindow::report_history_problem() {
    if (m_history == nullptr || m_history->available() || m_history_problem_shown) return;
    m_history_problem_shown = true;
    m_status->setText(m_history->problem());
}

bool MainWindow::in_history(const core::Conversation& conversation) const {
    return m_history != nullptr && m_stored.count(conversation.id()) > 0;
}

void MainWindow::save_header(const core::Conversation& conversation) {
    if (!in_history(conversation)) return;
    m_history->save_header(conversation);
    report_history_problem();
}

void MainWindow::save_message(const core::Conversation& conversation, int id) {
    if (!in_history(conversation) || conversation.find(id) == nullptr) return;
    m_history->save_message(conversation.id(), *conversation.find(id));
    report_history_problem();
}

void MainWindow::renameConversation(int id, const QString& title) {
    core::Conversation* conversation = conversation_by_id(id);
    const QString trimmed = title.simplified();
    if (conversation == nullptr || trimmed.isEmpty() || trimmed == conversation->title()) {
        refresh_list();
        return;
    }
    conversation->set_title(trimmed);
    save_header(*conversation);
    refresh_list();
}

void MainWindow::deleteConversation() {
    core::Conversation* conversation = current_conversation();
    if (conversation == nullptr || generating()) return;
    if (in_history(*conversation)) m_history->set_deleted(conversation->id(), true);
    const auto it = std::find_if(m_conversations.begin(), m_conversations.end(),
                                 [&](const auto& c) { return c.get() == conversation; });
    const auto row = static_cast<size_t>(it - m_conversations.begin());
    m_deleted.push_back({std::move(*it), row});
    m_conversations.erase(it);
    m_sidebar->set_undo_visible(true);
    m_status->setText(tr("Deleted “%1”. Undo is possible until Hearth closes.")
                          .arg(m_deleted.back().conversation->title()));
    show_first_conversation();
}

void MainWindow::undoDelete() {
    if (m_deleted.empty()) return;
    auto [conversation, row] = std::move(m_deleted.back());
    m_deleted.pop_back();
    if (in_history(*conversation)) m_history->set_deleted(conversation->id(), false);
    m_current = conversation->id();
    // Back where it was in the list, not at the top.
    const auto at = std::min(row, m_conversations.size());
    m_conversations.insert(m_conversations.begin() + static_cast<long>(at),
                           std::move(conversation));
    m_sidebar->set_undo_visible(!m_deleted.empty());
    refresh_list();
    refresh();
}

void MainWindow::keepApiConversation(const core::Conversation& conversation) {
    if (!m_settings.server.keep_in_history) return;
    auto kept = std::make_unique<core::Conversation>(conversation);
    kept->set_id(m_next_conversation++);
    auto* listed = kept.get();
    m_conversations.insert(m_conversations.begin(), std::move(kept));
    ensure_stored(*listed);
    refresh_list();
}

void MainWindow::purge_deleted() {
    if (m_history != nullptr) m_history->purge_deleted();
    m_deleted.clear();
}

void MainWindow::search(const QString& query) {
    m_hits.clear();
    const bool searching = !query.trimmed().isEmpty() && m_history != nullptr;
    if (searching) m_hits = m_history->search(query);
    QStringList results;
    for (const auto& hit : m_hits) {
        // Plain text for the list; the matches are marked with »…«.
        QString snippet = hit.snippet;
        snippet.replace(QStringLiteral("<b>"), QStringLiteral("»"))
            .replace(QStringLiteral("</b>"), QStringLiteral("«"));
        results.append(QStringLiteral("%1\n%2").arg(hit.title, snippet));
    }
    m_sidebar->show_results(searching, results);
}

void MainWindow::open_result(int row) {
    if (row < 0 || row >= static_cast<int>(m_hits.size())) return;  // "No matches"
    const auto& hit = m_hits[static_cast<size_t>(row)];
    openSearchHit(hit.conversation, hit.message);
}

void MainWindow::openSearchHit(int conversation_id, int message_id) {
    core::Conversation* conversation = conversation_by_id(conversation_id);
    if (conversation == nullptr || generating()) return;
    m_current = conversation_id;
    conversation->show_branch(message_id);
    m_sidebar->clear_search();
    refresh_list();
    refresh();
    if (auto* widget = m_chat->message_widget(message_id)) m_chat->ensureWidgetVisible(widget);
}

bool MainWindow::exportConversation(const QString& typed, const QString& filter) {
    const core::Conversation* conversation = current_conversation();
    const core::ExportTarget target = core::export_target(typed, filter);
    const QString& path = target.path;
    QFile file(path);
    if (conversation == nullptr || !file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        m_status->setText(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    const QByteArray bytes = core::export_bytes(*conversation, target.format);
    if (file.write(bytes) != bytes.size() || !file.flush()) {
        m_status->setText(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    m_status->setText(tr("Exported to %1.").arg(path));
    return true;
}

bool MainWindow::importConversation(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        m_status->setText(tr("Could not read %1: %2").arg(path, file.errorString()));
        return false;
    }
    try {
        auto conversation =
            std::make_unique<core::Conversation>(core::conversation_from_json(file.readAll()));
        add_conversation(std::move(conversation), true);
    } catch (const std::exception& error) {
        m_status->setText(tr("Could not import %1: %2").arg(path, QString::fromUtf8(error.what())));
        return false;
    }
    m_status->setText(tr("Imported %1.").arg(path));
    return true;
}

void MainWindow::refresh_list() {
    QStringList titles;
    int current = -1;
    for (const auto& conversation : m_conversations) {
        if (conversation->id() == m_current) current = static_cast<int>(titles.size());
        titles.append(conversation->title());
    }
    m_sidebar->show_titles(titles, current);
}

void MainWindow::choose_row(int row) {
    if (row < 0 || row >= static_cast<int>(m_conversations.size())) return;
    const int id = m_conversations[static_cast<size_t>(row)]->id();
    if (id == m_current) return;
    m_current = id;
    refresh();
}

void MainWindow::ask_export_path() {
    QString filter;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the conversation"),
                                                      current_conversation()->title(),
                                                      core::export_filters(), &filter);
    focus_message_box();
    if (!path.isEmpty()) exportConversation(path, filter);
}

void MainWindow::ask_import_path() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Import a conversation"), {}, tr("JSON (*.json)"));
    focus_message_box();
    if (!path.isEmpty()) importConversation(path);
}

}  // namespace hearth::ui
