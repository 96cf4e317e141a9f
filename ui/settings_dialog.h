// Settings: this conversation's (system prompt, sampling, limits, overflow, JSON mode, thinking,
// reasoning effort), the app's (threads, hand-off chunk, speculative decoding, backend, KV
// cache, theme, font size) and, given the server's status, the in-process API server's (the
// Server page). Every field only accepts valid values, so nothing fails later at generation
// time.
#pragma once

#include <QDialog>

#include "app/core/conversation.h"
#include "app/core/global_settings.h"
#include "app/core/server_status.h"
#include "engine/text/chat_template.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace hearth::ui {

class PromptPresetsEditor;
class ServerPage;

class SettingsDialog final : public QDialog {
    Q_OBJECT

public:
    // `choices`: what the loaded model's chat template reads, so which of the conversation's
    // Thinking and Reasoning effort choices can change its prompt (the others are shown,
    // disabled). `server`: the in-process server the Server page starts, stops and shows (no
    // Server page without it); it must outlive the dialog.
    SettingsDialog(const core::ConversationSettings& conversation,
                   const core::GlobalSettings& global, TemplateChoices choices,
                   core::ServerStatus* server = nullptr, QWidget* parent = nullptr);

    core::ConversationSettings conversation() const;
    core::GlobalSettings global() const;
    bool valid() const;

private:
    void validate();

    core::ConversationSettings m_conversation;
    core::GlobalSettings m_global;
    QPlainTextEdit* m_system = nullptr;
    PromptPresetsEditor* m_presets = nullptr;
    const QString m_seed_tip =
        tr("The same seed, settings and conversation give the same "
           "answer. Empty: a new random seed for every answer.");
    const QString m_context_tip =
        tr("How much of the conversation the model can see at once, "
           "in tokens. Longer needs more memory.");
    QDoubleSpinBox *m_temperature = nullptr, *m_top_p = nullptr, *m_min_p = nullptr,
                   *m_repeat = nullptr;
    QSpinBox *m_top_k = nullptr, *m_max_tokens = nullptr, *m_context = nullptr;
    QLineEdit* m_seed = nullptr;
    QComboBox* m_overflow = nullptr;
    QCheckBox* m_json = nullptr;
    QComboBox* m_thinking = nullptr;
    QComboBox* m_reasoning_effort = nullptr;
    QSpinBox *m_threads = nullptr, *m_chunk = nullptr, *m_font = nullptr;
    QCheckBox* m_speculative = nullptr;
    QLineEdit* m_draft_model = nullptr;
    QComboBox *m_backend = nullptr, *m_kv_cache = nullptr, *m_theme = nullptr;
    ServerPage* m_server = nullptr;
    QPushButton* m_ok = nullptr;
};

}  // namespace hearth::ui
