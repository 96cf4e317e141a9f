#include "ui/prompt_presets_editor.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>

#include "ui/named_button.h"

namespace hearth::ui {

PromptPresetsEditor::PromptPresetsEditor(std::vector<core::SystemPromptPreset> presets,
                                         const QString& new_chat, QPlainTextEdit* prompt,
                                         QWidget* parent)
    : QWidget(parent), m_presets(std::move(presets)), m_prompt(prompt) {
    m_pick = new QComboBox;
    m_pick->setObjectName(QStringLiteral("systemPromptPreset"));
    m_pick->setAccessibleName(tr("System prompt preset"));
    m_pick->setToolTip(tr("Pick a saved system prompt to use in this conversation."));
    // Long preset names must not widen the dialog past a small screen.
    m_pick->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_pick->setMinimumContentsLength(12);
    m_name = new QLineEdit;
    m_name->setObjectName(QStringLiteral("presetName"));
    m_name->setAccessibleName(tr("Preset name"));
    m_name->setPlaceholderText(tr("Preset name"));
    m_name->setToolTip(
        tr("The name to save the system prompt above under. Saving under a "
           "name that exists changes that preset."));
    m_save =
        named_button(tr("Save preset"), "savePreset", tr("Save the system prompt as a preset"));
    m_save->setToolTip(tr("Keep the system prompt above under this name, for any chat."));
    m_delete = named_button(tr("Delete preset"), "deletePreset", tr("Delete the preset"));
    m_delete->setToolTip(tr("Forget the preset of this name. Chats that use its text keep it."));
    m_new_chat = new QComboBox;
    m_new_chat->setObjectName(QStringLiteral("newChatPrompt"));
    m_new_chat->setAccessibleName(tr("New chats start with"));
    m_new_chat->setToolTip(
        tr("The system prompt every new chat starts with. A new chat does "
           "not take the open chat's system prompt."));

    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_pick, 1);
    row->addWidget(m_name, 1);
    row->addWidget(m_save);
    row->addWidget(m_delete);

    list_presets({}, new_chat);
    connect(m_pick, &QComboBox::activated, this, &PromptPresetsEditor::pick);
    connect(m_save, &QPushButton::clicked, this, &PromptPresetsEditor::save);
    connect(m_delete, &QPushButton::clicked, this, &PromptPresetsEditor::remove);
}

QString PromptPresetsEditor::new_chat_prompt() const {
    return m_new_chat->currentData().toString();
}

// Both lists, `picked` and `new_chat` selected where they are still presets.
void PromptPresetsEditor::list_presets(const QString& picked, const QString& new_chat) {
    m_pick->clear();
    m_pick->addItem(m_presets.empty() ? tr("No presets saved yet") : tr("Choose a preset…"),
                    QString());
    m_new_chat->clear();
    m_new_chat->addItem(tr("No system prompt"), QString());
    for (const auto& preset : m_presets) {
        m_pick->addItem(preset.name, preset.name);
        m_new_chat->addItem(preset.name, preset.name);
    }
    m_pick->setCurrentIndex(std::max(0, m_pick->findData(picked)));
    m_new_chat->setCurrentIndex(std::max(0, m_new_chat->findData(new_chat)));
}

void PromptPresetsEditor::pick(int index) {
    const QString name = m_pick->itemData(index).toString();
    if (name.isEmpty()) return;
    m_prompt->setPlainText(core::preset_text(m_presets, name));
    m_name->setText(name);  // ready to edit it: change the prompt, Save
}

void PromptPresetsEditor::save() {
    const QString name = m_name->text().simplified();
    if (name.isEmpty()) {
        m_name->setFocus();
        return;
    }
    core::save_preset(m_presets, name, m_prompt->toPlainText());
    list_presets(name, new_chat_prompt());
}

void PromptPresetsEditor::remove() {
    const QString name = m_name->text().simplified();
    const QString new_chat = new_chat_prompt();
    core::delete_preset(m_presets, name);
    m_name->clear();
    list_presets({}, new_chat == name ? QString() : new_chat);
}

}  // namespace hearth::ui
