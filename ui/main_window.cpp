#include "ui/main_window.h"

#include <QClipboard>
#include <QDockWidget>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>

#include "app/core/model_catalog.h"
#include "app/phrasing/model_text.h"
#include "engine/compute/backend_factory.h"
#include "ui/chat_view.h"
#include "ui/conversation_sidebar.h"
#include "ui/dashboard_dock.h"
#include "ui/markdown_view.h"
#include "ui/model_header.h"
#include "ui/named_button.h"
#include "ui/performance_dashboard.h"
#include "ui/prompt_edit.h"
#include "ui/settings_dialog.h"
#include "ui/theme.h"

namespace hearth::ui {

MainWindow::MainWindow(core::GlobalSettings settings, QWidget* parent)
    : QMainWindow(parent), m_settings(std::move(settings)) {
    setWindowTitle(QStringLiteral("Hearth"));
    resize(1100, 760);

    m_sidebar = new ConversationSidebar;
    m_header = new ModelHeader;
    m_chat = new ChatView;
    m_prompt = new PromptEdit;
    m_prompt->setMaximumHeight(120);
    m_send = named_button(tr("Send"), "send", tr("Send the message"));
    m_stop = named_button(tr("Stop"), "stop", tr("Stop the answer"));
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

    m_welcome = new QLabel;
    m_welcome->setObjectName(QStringLiteral("welcome"));
    m_welcome->setWordWrap(true);
    m_welcome->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_welcome->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_welcome->setMargin(24);
    show_welcome();

    auto* center = new QWidget;
    auto* center_layout = new QVBoxLayout(center);
    center_layout->addWidget(m_header);
    center_layout->addWidget(m_welcome, 1);
    center_layout->addWidget(m_chat, 1);
    center_layout->addLayout(input);
    center_layout->addWidget(m_context_meter);

    auto* splitter = new QSplitter;
    splitter->addWidget(m_sidebar);
    splitter->addWidget(center);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({220, 880});
    setCentralWidget(splitter);
    m_dashboard = new PerformanceDashboard;
    auto* dock = new DashboardDock(m_dashboard, this);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    dock->hide();
    connect(m_header, &ModelHeader::dashboardToggled, dock, &QDockWidget::setVisible);
    connect(dock, &QDockWidget::visibilityChanged, m_header, &ModelHeader::set_dashboard_shown);
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

    connect(m_sidebar, &ConversationSidebar::newChatClicked, this, &MainWindow::newConversation);
    connect(m_sidebar, &ConversationSidebar::deleteClicked, this, &MainWindow::deleteConversation);
    connect(m_sidebar, &ConversationSidebar::undoClicked, this, &MainWindow::undoDelete);
    connect(m_sidebar, &ConversationSidebar::exportClicked, this, &MainWindow::ask_export_path);
    connect(m_sidebar, &ConversationSidebar::importClicked, this, &MainWindow::ask_import_path);
    connect(m_sidebar, &ConversationSidebar::rowChosen, this, &MainWindow::choose_row);
    connect(m_sidebar, &ConversationSidebar::rowRenamed, this,
            [this](int row, const QString& title) {
                if (row < 0 || row >= static_cast<int>(m_conversations.size())) return;
                renameConversation(m_conversations[static_cast<size_t>(row)]->id(), title);
            });
    connect(m_sidebar, &ConversationSidebar::searchChanged, this, &MainWindow::search);
    connect(m_sidebar, &ConversationSidebar::resultChosen, this, &MainWindow::open_result);
    connect(m_header, &ModelHeader::chooseModelClicked, this, &MainWindow::open_model_picker);
    connect(m_header, &ModelHeader::settingsClicked, this, &MainWindow::open_settings);
    connect(m_header, &ModelHeader::cancelLoadClicked, this, &MainWindow::cancelLoadRequested);
    connect(m_prompt, &PromptEdit::submitted, this, &MainWindow::send);
    connect(m_send, &QPushButton::clicked, this, &MainWindow::send);
    connect(m_stop, &QPushButton::clicked, this, &MainWindow::stopRequested);
    add_shortcuts();
    connect(m_chat, &ChatView::regenerateRequested, this, &MainWindow::regenerate);
    connect(m_chat, &ChatView::continueRequested, this, &MainWindow::continueAnswer);
    connect(m_chat, &ChatView::editSubmitted, this, &MainWindow::resend);
    connect(m_chat, &ChatView::branchStepped, this, &MainWindow::step_branch);

    newConversation();
    m_prompt->setFocus();
}

MainWindow::~MainWindow() = default;

void MainWindow::add_shortcuts() {
    const auto add = [this](QKeySequence keys, auto action) {
        connect(new QShortcut(keys, this), &QShortcut::activated, this, action);
    };
    add(QKeySequence(Qt::Key_Escape), [this] {
        if (generating()) emit stopRequested();
    });
    add(QKeySequence(Qt::CTRL | Qt::Key_N), [this] { newConversation(); });
    add(QKeySequence(Qt::CTRL | Qt::Key_F), [this] { m_sidebar->focus_search(); });
    add(QKeySequence(Qt::CTRL | Qt::Key_L), [this] { focus_message_box(); });
    add(QKeySequence(Qt::CTRL | Qt::Key_Comma), [this] { open_settings(); });
    add(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), [this] { copy_last_answer(); });
}

void MainWindow::focus_message_box() {
    m_prompt->setFocus(Qt::OtherFocusReason);
}

void MainWindow::copy_last_answer() {
    const core::Conversation* conversation = current_conversation();
    if (conversation == nullptr) return;
    const auto thread = conversation->thread();
    for (auto id = thread.rbegin(); id != thread.rend(); ++id) {
        const core::Message* message = conversation->find(*id);
        if (message->role == QLatin1String("assistant") && !message->text.isEmpty()) {
            QGuiApplication::clipboard()->setText(message->text);
            m_status->setText(tr("Copied the last answer."));
            return;
        }
    }
    m_status->setText(tr("There is no answer to copy yet."));
}

void MainWindow::set_server_status(core::ServerStatus* status) {
    m_server_status = status;
    if (status != nullptr) m_dashboard->set_server_status(*status);
}

void MainWindow::set_bundled_model(const QString& path) {
    m_bundled_model = path;
}

void MainWindow::load_model(const QString& path) {
    m_status->setText(tr("Loading %1…").arg(path));
    showLoadProgress(0);
    emit loadModelRequested(path);
}

void MainWindow::showLoadStarted(const QString& path) {
    m_loading = path;
}

void MainWindow::showLoadProgress(int percent) {
    m_header->show_load_progress(percent);
}

bool MainWindow::is_bundled(const hearth::ModelInfo& info) const {
    return !m_bundled_model.isEmpty() &&
           QFileInfo(QString::fromStdString(info.path.string())) == QFileInfo(m_bundled_model);
}

void MainWindow::showModel(const hearth::ModelInfo& info, int context_length,
                           hearth::TemplateChoices choices) {
    m_header->hide_load_progress();
    m_model_ready = true;
    m_remote.reset();  // the local model answers again, and will after a restart
    m_settings.remote_connection.clear();
    m_settings.remote_model.clear();
    m_model_info = info;
    m_model_context = context_length;
    m_template_choices = choices;
    m_settings.last_model = QString::fromStdString(info.path.string());
    m_model_path = m_settings.last_model;
    m_model_sha256 = QString::fromStdString(info.sha256);
    const bool bundled = is_bundled(info);
    m_header->show_model(tr("%1 · context %2")
                             .arg(QString::fromStdString(model_heading_text(info, bundled)))
                             .arg(context_length),
                         QString::fromStdString(model_purpose_text(info, bundled)));
    // Why the model asked for is not the one running stays said; a load that went as asked
    // ends an earlier failure's notice.
    m_header->show_notice(
        m_falling_back
            ? tr("%1 Running %2 instead.").arg(m_load_failure, QFileInfo(m_model_path).fileName())
            : QString());
    m_loading.clear();
    m_failed_loads.clear();
    m_falling_back = false;
    m_status->setText(tr("Model loaded."));
    m_dashboard->set_model(info, context_length);
    show_welcome();
    refresh();
}

// The model asked for did not load. The header says why until a model loads; with no model
// running, the last good one or the bundled one is loaded instead.
void MainWindow::showLoadFailure(const QString& message) {
    if (m_loading.isEmpty()) {
        showError(message);  // no load of this window's was waiting for it
        return;
    }
    show_load_failure(message);
}

void MainWindow::show_load_failure(const QString& message) {
    m_header->hide_load_progress();
    m_failed_loads.append(m_loading);
    if (!m_falling_back) {
        m_load_failure = tr("Could not load %1: %2").arg(QFileInfo(m_loading).fileName(), message);
    }
    m_loading.clear();
    m_status->setText(tr("Error: %1").arg(message));
    const QString fallback = m_model_ready ? QString() : fallback_model();
    if (fallback.isEmpty()) {
        m_header->show_notice(m_load_failure);
        m_falling_back = false;
        return;
    }
    m_falling_back = true;
    m_header->show_notice(
        tr("%1 Loading %2 instead…").arg(m_load_failure, QFileInfo(fallback).fileName()));
    load_model(fallback);
}

QString MainWindow::fallback_model() const {
    for (const QString& candidate : {m_settings.last_model, m_bundled_model}) {
        if (!candidate.isEmpty() && !m_failed_loads.contains(candidate) &&
            QFileInfo::exists(candidate)) {
            return candidate;
        }
    }
    return {};
}

void MainWindow::show_welcome() {
    const hearth::ModelInfo* info = m_model_info ? &*m_model_info : nullptr;
    const bool bundled = info != nullptr && is_bundled(*info);
    const ModelSources sources{.models_folder = core::own_models_folder().toStdString()};
    m_welcome->setText(QString::fromStdString(welcome_text(info, bundled, sources)));
}

void MainWindow::showModelInfo(const hearth::ModelInfo& info, int context_length) {
    if (m_remote) return;  // the dashboard speaks of the remote engine, which answers
    m_dashboard->set_model(info, context_length);
}

void MainWindow::showBackend(const QString& name, const QString& notice) {
    m_backend_name = name;
    m_status->setText(notice.isEmpty() ? tr("Running on %1.").arg(name)
                                       : tr("Running on %1. %2").arg(name, notice));
}

void MainWindow::open_model_picker() {
    const auto scan = [this] {
        return m_model_source ? m_model_source(m_settings.model_folders)
                              : std::vector<core::ModelEntry>{};
    };
    const core::Conversation* conversation = current_conversation();
    ModelPicker picker(
        scan,
        {.requested_context = conversation ? conversation->settings().context_length : 0,
         .loaded_path = m_model_path,
         .folders = m_settings.model_folders,
         .connections = m_settings.connections,
         .remote = m_remote},
        this);
    connect(&picker, &ModelPicker::addFolderRequested, this, [this](const QString& folder) {
        if (m_settings.model_folders.contains(folder)) return;
        m_settings.model_folders.append(folder);
        emit globalSettingsChanged(m_settings);
    });
    connect(&picker, &ModelPicker::removeFolderRequested, this, [this](const QString& folder) {
        m_settings.model_folders.removeAll(folder);
        emit globalSettingsChanged(m_settings);
    });
    connect(&picker, &ModelPicker::connectionsChanged, this,
            [this](const std::vector<core::RemoteConnection>& connections) {
                m_settings.connections = connections;
                emit globalSettingsChanged(m_settings);
            });
    if (picker.exec() == QDialog::Accepted) {
        if (const auto remote = picker.selected_remote()) {
            use_remote(*remote);
        } else if (!picker.selected_path().isEmpty()) {
            load_model(picker.selected_path());
        }
    }
    focus_message_box();
}

void MainWindow::open_settings() {
    core::Conversation* conversation = current_conversation();
    if (conversation == nullptr) return;
    SettingsDialog dialog(conversation->settings(), m_settings, m_template_choices, m_server_status,
                          this);
    const bool accepted = dialog.exec() == QDialog::Accepted;
    focus_message_box();
    if (!accepted) return;
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
