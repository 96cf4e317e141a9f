// The chat window: conversations on the left (ConversationSidebar), the model on top
// (ModelHeader), the messages of the conversation open in the middle, the message box at the
// bottom; the model picker and the settings dialog. It knows nothing of the engine's workings:
// it speaks through signals and slots that app/ wires to the worker thread.
//
// Its members are defined by concept: main_window.cpp composes the window and handles the
// model, the settings and the dashboard; main_window_history.cpp the conversations (new, stored,
// renamed, deleted and undone, searched, exported and imported); main_window_streaming.cpp the
// answers (asked, streamed, finished or failed) and the status line and context meter;
// main_window_remote.cpp what a remote engine changes (choosing one, its failed answers).
#pragma once

#include <QMainWindow>

#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "app/core/conversation.h"
#include "app/core/global_settings.h"
#include "app/core/history_store.h"
#include "app/core/metatypes.h"
#include "app/core/remote_connection.h"
#include "app/core/server_status.h"
#include "app/core/streaming_saver.h"
#include "engine/generation/generation_request.h"
#include "engine/model/model_info.h"
#include "ui/answer_figures.h"
#include "ui/model_picker.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace hearth::ui {

class ChatView;
class ConversationSidebar;
class ModelHeader;
class PerformanceDashboard;
class PromptEdit;

class MainWindow final : public QMainWindow {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    explicit MainWindow(core::GlobalSettings settings = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Conversations are kept in `history` from now on, and those it holds are listed.
    void set_history(core::HistoryStore* history);
    // Deleted conversations stay restorable (Undo) until this runs (when the app closes).
    void purge_deleted();
    // The in-process API server the Settings' Server page and the dashboard show; it must
    // outlive the window.
    void set_server_status(core::ServerStatus* status);
    core::ServerStatus* server_status() const { return m_server_status; }

    using ModelSource =
        std::function<std::vector<core::ModelEntry>(const QStringList& extra_folders)>;
    void set_model_source(ModelSource source) { m_model_source = std::move(source); }
    const ModelSource& model_source() const { return m_model_source; }

    // For tests and the screenshot tour: the conversation on screen and the answer streaming.
    core::Conversation* current_conversation();
    bool generating() const { return m_streaming_message >= 0; }
    ChatView* chat_view() const { return m_chat; }
    PerformanceDashboard* dashboard() const { return m_dashboard; }
    const core::GlobalSettings& global_settings() const { return m_settings; }
    const QString& model_path() const { return m_model_path; }  // of the loaded model
    // What the loaded model's chat template lets a conversation choose (the settings' Thinking
    // and Reasoning effort).
    const hearth::TemplateChoices& template_choices() const { return m_template_choices; }
    void apply_global_settings(const core::GlobalSettings& settings);
    void apply_conversation_settings(const core::ConversationSettings& settings);
    void open_model_picker();
    void open_settings();
    // The model that ships with Hearth: named as such, and the last fallback when a model fails
    // to load while none runs.
    void set_bundled_model(const QString& path);
    // Asks for `path`. If it fails while no model runs, the last good model or the bundled one is
    // loaded instead, and the header keeps saying why.
    void load_model(const QString& path);
    // Asks for `choice` to answer from now on instead of the loaded model, which stays loaded:
    // choosing it again in the picker returns to it at once.
    void use_remote(const core::RemoteChoice& choice);
    // At start: asks for the remote model that answered when the app last closed, and says
    // whether it did. One whose connection was removed since is not asked (false): the header
    // says so above the local model, which is loaded instead. One that is asked but cannot be
    // used (its address or key) loads `fallback_model` (if any) with the reason above it.
    bool restore_remote(const QString& fallback_model = {});
    // The remote engine answering now; none while a local model does.
    const std::optional<core::RemoteChoice>& remote() const { return m_remote; }

signals:
    void loadModelRequested(const QString& path);
    void useRemoteRequested(const hearth::core::RemoteChoice& choice);
    void cancelLoadRequested();
    void generateRequested(const hearth::ChatRequest& request);
    void stopRequested();
    void globalSettingsChanged(const hearth::core::GlobalSettings& settings);
    void runBenchmarkRequested(int prompt_tokens, int generated_tokens);

public slots:
    // The engine was asked to load `path` (by the window, the picker or the command line).
    void showLoadStarted(const QString& path);
    void showLoadProgress(int percent);
    void showModel(const hearth::ModelInfo& info, int context_length,
                   hearth::TemplateChoices choices);
    // New facts of the loaded model (the KV cache after a settings change): the dashboard's.
    void showModelInfo(const hearth::ModelInfo& info, int context_length);
    // The answer's prompt is laid out: the context meter counts it from now on.
    void showGenerationStarted(int conversation, const hearth::GenerationStats& prompt);
    void showPrefillProgress(int conversation, int done, int total);
    void appendChunk(int conversation, const hearth::TokenChunk& chunk);
    void finishGeneration(int conversation, const hearth::GenerationResult& result);
    // A remote answer failed: what arrived (`partial`) stays, marked unfinished, with the
    // record of where it came from; the status line names the cause.
    void failGeneration(int conversation, const hearth::GenerationResult& partial,
                        const QString& message);
    // A local answer failed: what arrived stays, marked unfinished; the status line names why.
    void failAnswer(int conversation, const QString& message);
    // The model asked for could not be loaded (the header says so; a fallback may load).
    void showLoadFailure(const QString& message);
    // A remote engine answers from now on (the engine took the choice).
    void showRemote(const hearth::core::RemoteChoice& choice);
    // A remote engine could not be chosen (one saved from last time falls back to a local model).
    void showRemoteRefused(const QString& message);
    // An error that ends nothing under way (a setting, a draft model): the status line says it.
    void showError(const QString& message);
    // The backend running the model; a notice says why it is not the one the settings ask for.
    void showBackend(const QString& name, const QString& notice);
    void showBenchmarkProgress(int percent);
    void showBenchmark(const hearth::core::BenchmarkResult& result);
    void showBenchmarkFailure(const QString& message);
    // A chat answered through the API server: listed and stored with the conversations when
    // the settings keep API conversations, else dropped. The one on screen stays on screen.
    void keepApiConversation(const hearth::core::Conversation& conversation);
    void send();
    void newConversation();
    void regenerate(int answer_id);
    // More of an answer the token limit cut off: the same message grows.
    void continueAnswer(int answer_id);
    void resend(int user_id, const QString& text);
    void renameConversation(int id, const QString& title);
    void deleteConversation();
    void undoDelete();
    void search(const QString& query);
    void openSearchHit(int conversation, int message);
    // `filter`: the save dialog's chosen one, which names the format; its extension is added to
    // a name typed without one. Without a filter the name's extension decides.
    bool exportConversation(const QString& path, const QString& filter = {});
    bool importConversation(const QString& path);

private:
    // At start, when the remote model of the last session cannot be used (`message`): the local
    // model loads instead, with the reason above it. False when no such start is under way.
    bool fall_back_from_remote(const QString& message);
    // The saved remote choice will not answer at start (`why`): it is cleared, and the local
    // model that loads instead keeps `why` above it.
    void forget_saved_remote(const QString& why);
    // The conversations (main_window_history.cpp).
    void add_conversation(std::unique_ptr<core::Conversation> conversation, bool front);
    // Conversations reach the history with their first message (empty ones are not kept).
    void ensure_stored(core::Conversation& conversation);
    bool in_history(const core::Conversation& conversation) const;
    void show_first_conversation();
    void save_header(const core::Conversation& conversation);
    void save_message(const core::Conversation& conversation, int id);
    void report_history_problem();
    void refresh_list();
    void choose_row(int row);
    void open_result(int row);
    void ask_export_path();
    void ask_import_path();
    core::Conversation* conversation_by_id(int id);

    // The keyboard (main_window.cpp): Ctrl+N, Ctrl+F, Ctrl+L, Ctrl+, and Ctrl+Shift+C.
    void add_shortcuts();
    void copy_last_answer();
    // After every dialog, typing goes on in the message box.
    void focus_message_box();

    // The model (main_window.cpp).
    void show_load_failure(const QString& message);
    QString fallback_model() const;
    bool is_bundled(const hearth::ModelInfo& info) const;
    void show_welcome();

    // The answers (main_window_streaming.cpp).
    void start_answer(core::Conversation& conversation, int user_id);
    void stream_answer(core::Conversation& conversation, int answer_id, ChatRequest request);
    void step_branch(int id, int step);
    void refresh();
    void set_generating(bool generating);
    // How the answer streaming now was made, with `stats` as its figures.
    core::GenerationRecord answer_record(const GenerationStats& stats) const;
    // The streaming answer `message` is over, finished or not: it gets its record (`stats` as
    // its figures) and is stored as it is now.
    void end_answer(core::Message& message, const GenerationStats& stats, bool finished);
    // No answer streams any more.
    void leave_streaming();
    void show_progress();
    void show_context(int used);
    int context_length(const core::Conversation& conversation) const;

    core::GlobalSettings m_settings;
    core::HistoryStore* m_history = nullptr;
    std::unique_ptr<core::StreamingSaver> m_saver;
    // Restorable with Undo, each with the row it had, so it returns to its place.
    struct Deleted {
        std::unique_ptr<core::Conversation> conversation;
        size_t row = 0;
    };
    std::vector<Deleted> m_deleted;
    bool m_history_problem_shown = false;
    std::vector<core::SearchHit> m_hits;
    std::set<int> m_stored;  // conversation ids the history holds
    ModelSource m_model_source;
    std::vector<std::unique_ptr<core::Conversation>> m_conversations;
    int m_current = -1;                   // conversation id on screen
    int m_next_conversation = 1'000'000;  // ids for conversations the history could not take
    int m_streaming_conversation = -1;
    int m_streaming_message = -1;
    bool m_model_ready = false;
    std::optional<hearth::ModelInfo> m_model_info;  // of the model running
    QString m_bundled_model;
    QString m_loading;            // the model the engine is loading; empty when none
    QStringList m_failed_loads;   // since a model last loaded: not tried as fallbacks
    QString m_load_failure;       // why the model asked for did not load
    bool m_falling_back = false;  // the model loading replaces one that failed
    // At start, while the remote model of the last session is asked for: what loads if it
    // cannot be used. Cleared once it answers or fails.
    std::optional<QString> m_remote_fallback;
    QString m_model_path, m_model_sha256;
    QString m_backend_name;               // as the engine reports it, e.g. "vulkan (NVIDIA …)"
    SamplerSettings m_streaming_sampler;  // of the answer streaming
    std::optional<core::RemoteChoice> m_remote;            // answering instead of the model
    std::optional<core::RemoteChoice> m_streaming_remote;  // that answers the one streaming
    AnswerProgress m_progress;                             // of the answer streaming
    // The figures of the answer being continued, as they were before.
    std::optional<GenerationStats> m_continued_from;
    int m_model_context = 0;
    hearth::TemplateChoices m_template_choices;
    core::ServerStatus* m_server_status = nullptr;

    ConversationSidebar* m_sidebar = nullptr;
    ModelHeader* m_header = nullptr;
    ChatView* m_chat = nullptr;
    PromptEdit* m_prompt = nullptr;
    QPushButton* m_send = nullptr;
    QPushButton* m_stop = nullptr;
    QProgressBar* m_context_meter = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_welcome = nullptr;         // shown instead of the messages while a chat has none
    QTimer* m_progress_frame = nullptr;  // the status line and the meter follow the answer
    PerformanceDashboard* m_dashboard = nullptr;
};

}  // namespace hearth::ui

Q_DECLARE_METATYPE(hearth::core::GlobalSettings)
