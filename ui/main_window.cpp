#include "ui/main_window.h"

#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QRandomGenerator>
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>

#include "app/core/continued_answer.h"
#include "app/core/conversation_request.h"
#include "app/core/history_json.h"
#include "app/phrasing/architecture_text.h"
#include "app/phrasing/notice_text.h"
#include "engine/compute/backend_factory.h"
#include "ui/chat_view.h"
#include "ui/markdown_view.h"
#include "ui/message_widget.h"
#include "ui/performance_dashboard.h"
#include "ui/prompt_edit.h"
#include "ui/settings_dialog.h"
#include "ui/theme.h"

namespace hearth::ui {
namespace {

QPushButton* button(const QString& text, const char* name, const QString& accessible) {
    auto* widget = new QPushButton(text);
    widget->setObjectName(QLatin1String(name));
    widget->setAccessibleName(accessible);
    return widget;
}

QString title_from(const QString& text) {
    QString line = text.section('\n', 0, 0).simplified();
    return line.size() > 40 ? line.left(39) + QStringLiteral("…") : line;
}

}  // namespace

MainWindow::MainWindow(core::GlobalSettings settings, QWidget* parent)
    : QMainWindow(parent), m_settings(std::move(settings)) {
    setWindowTitle(QStringLiteral("Hearth"));
    resize(1100, 760);

    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("conversations"));
    m_list->setAccessibleName(tr("Conversations"));
    auto* new_chat = button(tr("New chat"), "newChat", tr("New conversation"));
    m_search = new QLineEdit;
    m_search->setObjectName(QStringLiteral("search"));
    m_search->setAccessibleName(tr("Search all conversations"));
    m_search->setPlaceholderText(tr("Search conversations"));
    m_search->setClearButtonEnabled(true);
    m_results = new QListWidget;
    m_results->setObjectName(QStringLiteral("searchResults"));
    m_results->setAccessibleName(tr("Search results"));
    m_results->setWordWrap(true);
    m_results->hide();
    auto* remove = button(tr("Delete"), "deleteConversation", tr("Delete the conversation"));
    m_undo = button(tr("Undo delete"), "undoDelete", tr("Undo the deletion"));
    m_undo->hide();
    auto* export_button =
        button(tr("Export…"), "exportConversation", tr("Export as Markdown or JSON"));
    auto* import_button =
        button(tr("Import…"), "importConversation", tr("Import a JSON conversation"));
    auto* file_buttons = new QHBoxLayout;
    file_buttons->addWidget(export_button);
    file_buttons->addWidget(import_button);
    auto* left = new QWidget;
    auto* left_layout = new QVBoxLayout(left);
    left_layout->addWidget(new_chat);
    left_layout->addWidget(m_search);
    left_layout->addWidget(m_results, 1);
    left_layout->addWidget(m_list, 1);
    left_layout->addWidget(remove);
    left_layout->addWidget(m_undo);
    left_layout->addLayout(file_buttons);

    m_model = new QLabel(tr("No model loaded"));
    m_model->setObjectName(QStringLiteral("model"));
    auto* choose = button(tr("Models…"), "chooseModel", tr("Choose a model"));
    m_load_progress = new QProgressBar;
    m_load_progress->setObjectName(QStringLiteral("loadProgress"));
    m_load_progress->setAccessibleName(tr("Loading the model"));
    m_load_progress->setRange(0, 100);
    m_load_progress->hide();
    m_cancel_load = button(tr("Cancel"), "cancelLoad", tr("Cancel loading"));
    m_cancel_load->hide();
    auto* settings_button = button(tr("Settings…"), "settings", tr("Settings"));
    auto* performance =
        button(tr("Performance"), "showDashboard", tr("Show the performance dashboard"));
    performance->setCheckable(true);
    auto* top = new QHBoxLayout;
    top->addWidget(m_model, 1);
    top->addWidget(m_load_progress);
    top->addWidget(m_cancel_load);
    top->addWidget(choose);
    top->addWidget(settings_button);
    top->addWidget(performance);

    m_chat = new ChatView;
    m_prompt = new PromptEdit;
    m_prompt->setMaximumHeight(120);
    m_send = button(tr("Send"), "send", tr("Send the message"));
    m_stop = button(tr("Stop"), "stop", tr("Stop the answer"));
    m_stop->setEnabled(false);
    m_context_meter = new QProgressBar;
    m_context_meter->setObjectName(QStringLiteral("contextMeter"));
    m_context_meter->setAccessibleName(tr("Context used"));
    m_context_meter->setFormat(tr("context %v / %m tokens"));
    m_context_meter->setRange(0, 1);
    m_context_meter->setValue(0);
    auto* buttons = new QVBoxLayout;
    buttons->addWidget(m_send);
    buttons->addWidget(m_stop);
    auto* input = new QHBoxLayout;
    input->addWidget(m_prompt, 1);
    input->addLayout(buttons);

    auto* center = new QWidget;
    auto* center_layout = new QVBoxLayout(center);
    center_layout->addLayout(top);
    center_layout->addWidget(m_chat, 1);
    center_layout->addLayout(input);
    center_layout->addWidget(m_context_meter);

    auto* splitter = new QSplitter;
    splitter->addWidget(left);
    splitter->addWidget(center);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({220, 880});
    setCentralWidget(splitter);
    m_dashboard = new PerformanceDashboard;
    auto* dock = new QDockWidget(tr("Performance"), this);
    dock->setObjectName(QStringLiteral("dashboardDock"));
    dock->setWidget(m_dashboard);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    dock->hide();
    connect(performance, &QPushButton::toggled, dock, &QDockWidget::setVisible);
    connect(dock, &QDockWidget::visibilityChanged, performance, &QPushButton::setChecked);
    connect(m_dashboard, &PerformanceDashboard::runBenchmarkRequested, this,
            [this] { emit runBenchmarkRequested(512, 128); });
    connect(m_dashboard, &PerformanceDashboard::cancelBenchmarkRequested, this,
            &MainWindow::stopRequested);
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("status"));
    m_status->setWordWrap(true);
    statusBar()->addWidget(m_status, 1);
    m_progress_frame = new QTimer(this);
    m_progress_frame->setSingleShot(true);
    m_progress_frame->setInterval(MarkdownView::kFrameMilliseconds);
    connect(m_progress_frame, &QTimer::timeout, this, &MainWindow::show_progress);

    connect(new_chat, &QPushButton::clicked, this, &MainWindow::newConversation);
    connect(remove, &QPushButton::clicked, this, &MainWindow::deleteConversation);
    connect(m_list, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        const int row = m_list->row(item);
        if (row < 0 || row >= static_cast<int>(m_conversations.size())) return;
        renameConversation(m_conversations[static_cast<size_t>(row)]->id(), item->text());
    });
    connect(m_undo, &QPushButton::clicked, this, &MainWindow::undoDelete);
    connect(m_search, &QLineEdit::textChanged, this, &MainWindow::search);
    connect(m_results, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const int row = m_results->row(item);
        if (row < 0 || row >= static_cast<int>(m_hits.size())) return;  // "No matches"
        const auto& hit = m_hits[static_cast<size_t>(row)];
        openSearchHit(hit.conversation, hit.message);
    });
    connect(m_results, &QListWidget::itemClicked, m_results, &QListWidget::itemActivated);
    connect(export_button, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the conversation"),
                                                          current_conversation()->title(),
                                                          tr("Markdown (*.md);;JSON (*.json)"));
        if (!path.isEmpty()) exportConversation(path);
    });
    connect(import_button, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Import a conversation"), {},
                                                          tr("JSON (*.json)"));
        if (!path.isEmpty()) importConversation(path);
    });
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row < 0 || row >= static_cast<int>(m_conversations.size())) return;
        const int id = m_conversations[static_cast<size_t>(row)]->id();
        if (id == m_current) return;
        m_current = id;
        refresh();
    });
    connect(choose, &QPushButton::clicked, this, &MainWindow::open_model_picker);
    connect(settings_button, &QPushButton::clicked, this, &MainWindow::open_settings);
    connect(m_cancel_load, &QPushButton::clicked, this, &MainWindow::cancelLoadRequested);
    connect(m_prompt, &PromptEdit::submitted, this, &MainWindow::send);
    connect(m_send, &QPushButton::clicked, this, &MainWindow::send);
    connect(m_stop, &QPushButton::clicked, this, &MainWindow::stopRequested);
    auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(escape, &QShortcut::activated, this, [this] {
        if (generating()) emit stopRequested();
    });
    connect(m_chat, &ChatView::regenerateRequested, this, &MainWindow::regenerate);
    connect(m_chat, &ChatView::continueRequested, this, &MainWindow::continueAnswer);
    connect(m_chat, &ChatView::editSubmitted, this, &MainWindow::resend);
    connect(m_chat, &ChatView::branchStepped, this, &MainWindow::step_branch);

    newConversation();
    m_prompt->setFocus();
}

MainWindow::~MainWindow() = default;

core::Conversation* MainWindow::conversation_by_id(int id) {
    for (auto& conversation : m_conversations) {
        if (conversation->id() == id) return conversation.get();
    }
    return nullptr;
}

core::Conversation* MainWindow::current_conversation() {
    return conversation_by_id(m_current);
}

void MainWindow::newConversation() {
    auto conversation = std::make_unique<core::Conversation>(0, tr("New chat"));
    if (auto* current = current_conversation()) conversation->settings() = current->settings();
    add_conversation(std::move(conversation), true);
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
    m_deleted.push_back(std::move(*it));
    m_conversations.erase(it);
    m_undo->show();
    m_status->setText(
        tr("Deleted “%1”. Undo is possible until Hearth closes.").arg(m_deleted.back()->title()));
    show_first_conversation();
}

void MainWindow::undoDelete() {
    if (m_deleted.empty()) return;
    auto conversation = std::move(m_deleted.back());
    m_deleted.pop_back();
    if (in_history(*conversation)) m_history->set_deleted(conversation->id(), false);
    m_current = conversation->id();
    m_conversations.insert(m_conversations.begin(), std::move(conversation));
    m_undo->setVisible(!m_deleted.empty());
    refresh_list();
    refresh();
}

void MainWindow::set_server_status(core::ServerStatus* status) {
    m_server_status = status;
    if (status != nullptr) m_dashboard->set_server_status(*status);
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
    m_results->clear();
    m_hits.clear();
    const bool searching = !query.trimmed().isEmpty() && m_history != nullptr;
    m_results->setVisible(searching);
    m_list->setVisible(!searching);
    if (!searching) return;
    m_hits = m_history->search(query);
    for (const auto& hit : m_hits) {
        // Plain text for the list; the matches are marked with »…«.
        QString snippet = hit.snippet;
        snippet.replace(QStringLiteral("<b>"), QStringLiteral("»"))
            .replace(QStringLiteral("</b>"), QStringLiteral("«"));
        m_results->addItem(QStringLiteral("%1\n%2").arg(hit.title, snippet));
    }
    if (m_hits.empty()) m_results->addItem(tr("No matches"));
}

void MainWindow::openSearchHit(int conversation_id, int message_id) {
    core::Conversation* conversation = conversation_by_id(conversation_id);
    if (conversation == nullptr || generating()) return;
    m_current = conversation_id;
    conversation->show_branch(message_id);
    m_search->clear();
    refresh_list();
    refresh();
    if (auto* widget = m_chat->message_widget(message_id)) m_chat->ensureWidgetVisible(widget);
}

bool MainWindow::exportConversation(const QString& path) {
    const core::Conversation* conversation = current_conversation();
    QFile file(path);
    if (conversation == nullptr || !file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        m_status->setText(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    const QByteArray bytes = path.endsWith(QLatin1String(".md"), Qt::CaseInsensitive)
                                 ? core::conversation_to_markdown(*conversation).toUtf8()
                                 : core::conversation_to_json(*conversation);
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
    const QSignalBlocker blocker(m_list);
    m_list->clear();
    for (size_t i = 0; i < m_conversations.size(); ++i) {
        auto* item = new QListWidgetItem(m_conversations[i]->title(), m_list);
        item->setFlags(item->flags() | Qt::ItemIsEditable);  // F2 or double-click renames
        if (m_conversations[i]->id() == m_current) m_list->setCurrentRow(static_cast<int>(i));
    }
}

void MainWindow::refresh() {
    core::Conversation* conversation = current_conversation();
    if (conversation == nullptr) return;
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
    m_streaming_conversation = conversation.id();
    m_streaming_message = answer_id;
    save_message(conversation, m_streaming_message);
    m_saver = std::make_unique<core::StreamingSaver>(m_history, conversation.id());
    m_progress = {};
    m_dashboard->generation_started(context_length(conversation));
    set_generating(true);
    refresh();
    m_status->setText(tr("Thinking…"));
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

void MainWindow::showLoadProgress(int percent) {
    m_load_progress->show();
    m_cancel_load->show();
    m_load_progress->setValue(percent);
}

void MainWindow::showModel(const hearth::ModelInfo& info, int context_length,
                           hearth::TemplateChoices choices) {
    m_load_progress->hide();
    m_cancel_load->hide();
    m_model_ready = true;
    m_model_context = context_length;
    m_template_choices = choices;
    m_settings.last_model = QString::fromStdString(info.path.string());
    m_model_path = m_settings.last_model;
    m_model_sha256 = QString::fromStdString(info.sha256);
    m_model->setText(tr("%1 · %2 · %3 · %4 · context %5")
                         .arg(QString::fromStdString(info.name),
                              QString::fromStdString(architecture_text(info.architecture)),
                              QString::fromStdString(parameter_count_text(info.parameters)),
                              QString::fromStdString(info.quantization))
                         .arg(context_length));
    m_status->setText(tr("Model loaded."));
    m_dashboard->set_model(info, context_length);
    refresh();
}

void MainWindow::showModelInfo(const hearth::ModelInfo& info, int context_length) {
    m_dashboard->set_model(info, context_length);
}

void MainWindow::showBackend(const QString& name, const QString& notice) {
    m_backend_name = name;
    m_status->setText(notice.isEmpty() ? tr("Running on %1.").arg(name)
                                       : tr("Running on %1. %2").arg(name, notice));
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
    if (m_saver) m_saver->update(*message);
    m_dashboard->add_chunk(chunk);
    m_progress.add(chunk);
    if (!m_progress_frame->isActive()) m_progress_frame->start();
    if (conversation_id == m_current) {
        if (auto* view = m_chat->streaming_view()) view->append(QString::fromStdString(chunk.text));
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
        core::GenerationRecord record;
        record.model_file = m_model_path;
        record.model_sha256 = m_model_sha256;
        record.backend = m_backend_name.isEmpty() ? m_settings.backend : m_backend_name;
        record.seed = m_streaming_sampler.seed;
        record.sampler = m_streaming_sampler;
        record.stats = answer;
        message->generation = record;
        message->finished = result.stats.stop_reason != StopReason::Cancelled;
        if (m_saver) m_saver->finish(*message);
        report_history_problem();
        m_dashboard->generation_finished(result.stats);
    }
    m_streaming_conversation = m_streaming_message = -1;
    m_continued_from.reset();
    set_generating(false);
    QString summary = answer_figures_text(answer);
    if (!result.notices.empty())
        summary += QStringLiteral("\n") + QString::fromStdString(notices_text(result.notices));
    m_status->setText(summary);
    if (conversation_id == m_current) refresh();
}

void MainWindow::showError(const QString& message) {
    m_load_progress->hide();
    m_cancel_load->hide();
    if (generating()) {
        // The answer that failed stays as it is, marked unfinished.
        if (core::Conversation* conversation = conversation_by_id(m_streaming_conversation)) {
            if (core::Message* message = conversation->find(m_streaming_message);
                message && m_saver) {
                m_saver->finish(*message);
            }
        }
        m_streaming_conversation = m_streaming_message = -1;
        m_continued_from.reset();
        set_generating(false);
        refresh();
    }
    m_status->setText(tr("Error: %1").arg(message));
}

void MainWindow::open_model_picker() {
    const auto scan = [this] {
        return m_model_source ? m_model_source(m_settings.model_folders)
                              : std::vector<core::ModelEntry>{};
    };
    ModelPicker picker(scan, m_model_context > 0 ? m_model_context : kDefaultContextCap, this);
    connect(&picker, &ModelPicker::addFolderRequested, this, [this](const QString& folder) {
        if (m_settings.model_folders.contains(folder)) return;
        m_settings.model_folders.append(folder);
        emit globalSettingsChanged(m_settings);
    });
    if (picker.exec() == QDialog::Accepted && !picker.selected_path().isEmpty()) {
        m_status->setText(tr("Loading %1…").arg(picker.selected_path()));
        showLoadProgress(0);
        emit loadModelRequested(picker.selected_path());
    }
}

void MainWindow::open_settings() {
    core::Conversation* conversation = current_conversation();
    if (conversation == nullptr) return;
    SettingsDialog dialog(conversation->settings(), m_settings, m_template_choices, m_server_status,
                          this);
    if (dialog.exec() != QDialog::Accepted) return;
    apply_conversation_settings(dialog.conversation());
    apply_global_settings(dialog.global());
}

void MainWindow::apply_conversation_settings(const core::ConversationSettings& settings) {
    if (core::Conversation* conversation = current_conversation()) {
        conversation->settings() = settings;
        save_header(*conversation);
    }
    refresh();
}

void MainWindow::apply_global_settings(const core::GlobalSettings& settings) {
    const bool restyle =
        settings.theme != m_settings.theme || settings.font_size != m_settings.font_size;
    m_settings = settings;
    if (restyle) {
        apply_theme(settings.theme, settings.font_size);
        m_chat->rebuild();  // code blocks pick their colours when built
        refresh();
    }
    emit globalSettingsChanged(m_settings);
}

void MainWindow::showBenchmarkProgress(int percent) {
    m_dashboard->show_benchmark_progress(percent);
}

void MainWindow::showBenchmark(const hearth::core::BenchmarkResult& result) {
    m_dashboard->show_benchmark(result);
    m_status->setText(tr("Benchmark: prompt %1 tok/s, generation %2 tok/s.")
                          .arg(result.prompt_tokens_per_second, 0, 'f', 1)
                          .arg(result.generation_tokens_per_second, 0, 'f', 1));
}

void MainWindow::showBenchmarkFailure(const QString& message) {
    m_dashboard->benchmark_failed(message);
    m_status->setText(message);
}

}  // namespace hearth::ui
