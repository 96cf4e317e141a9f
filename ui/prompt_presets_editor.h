// The system prompt presets in the settings: pick one to fill the conversation's system prompt,
// save what the prompt holds under a name (the same name edits that preset), delete one; and
// the choice of the one new chats start with (new_chat_box(), laid out by the settings).
#pragma once

#include <QWidget>

#include <vector>

#include "app/core/system_prompt_presets.h"

class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace hearth::ui {

class PromptPresetsEditor final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PromptPresetsEditor)

public:
    // `prompt`: the conversation's system prompt field, which a pick fills and Save reads; it
    // must outlive the editor.
    PromptPresetsEditor(std::vector<core::SystemPromptPreset> presets, const QString& new_chat,
                        QPlainTextEdit* prompt, QWidget* parent = nullptr);

    const std::vector<core::SystemPromptPreset>& presets() const { return m_presets; }
    // The preset new chats start with; empty: none.
    QString new_chat_prompt() const;
    // The choice of that preset, for the settings to lay out on a row of its own.
    QComboBox* new_chat_box() const { return m_new_chat; }

private:
    void list_presets(const QString& picked, const QString& new_chat);
    void pick(int index);
    void save();
    void remove();

    std::vector<core::SystemPromptPreset> m_presets;
    QPlainTextEdit* m_prompt = nullptr;
    QComboBox* m_pick = nullptr;
    QLineEdit* m_name = nullptr;
    QPushButton* m_save = nullptr;
    QPushButton* m_delete = nullptr;
    QComboBox* m_new_chat = nullptr;
};

}  // namespace hearth::ui
