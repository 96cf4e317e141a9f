#include "ui/conversation_sidebar.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/named_button.h"
#include "ui/theme.h"

namespace hearth::ui {

ConversationSidebar::ConversationSidebar(QWidget* parent) : QWidget(parent) {
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("conversations"));
    m_list->setAccessibleName(tr("Conversations"));
    show_focus_frame(m_list);
    auto* new_chat = named_button(tr("New chat"), "newChat", tr("New conversation"));
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
    auto* remove = named_button(tr("Delete"), "deleteConversation", tr("Delete the conversation"));
    m_undo = named_button(tr("Undo delete"), "undoDelete", tr("Undo the deletion"));
    m_undo->hide();
    auto* export_button =
        named_button(tr("Export…"), "exportConversation", tr("Export as Markdown or JSON"));
    auto* import_button =
        named_button(tr("Import…"), "importConversation", tr("Import a JSON conversation"));
    auto* file_buttons = new QHBoxLayout;
    file_buttons->addWidget(export_button);
    file_buttons->addWidget(import_button);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new_chat);
    layout->addWidget(m_search);
    layout->addWidget(m_results, 1);
    layout->addWidget(m_list, 1);
    layout->addWidget(remove);
    layout->addWidget(m_undo);
    layout->addLayout(file_buttons);

    connect(new_chat, &QPushButton::clicked, this, &ConversationSidebar::newChatClicked);
    connect(remove, &QPushButton::clicked, this, &ConversationSidebar::deleteClicked);
    connect(m_undo, &QPushButton::clicked, this, &ConversationSidebar::undoClicked);
    connect(export_button, &QPushButton::clicked, this, &ConversationSidebar::exportClicked);
    connect(import_button, &QPushButton::clicked, this, &ConversationSidebar::importClicked);
    connect(m_list, &QListWidget::itemChanged, this,
            [this](QListWidgetItem* item) { emit rowRenamed(m_list->row(item), item->text()); });
    connect(m_list, &QListWidget::currentRowChanged, this, &ConversationSidebar::rowChosen);
    connect(m_search, &QLineEdit::textChanged, this, &ConversationSidebar::searchChanged);
    connect(m_results, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit resultChosen(m_results->row(item)); });
    connect(m_results, &QListWidget::itemClicked, m_results, &QListWidget::itemActivated);
}

void ConversationSidebar::show_titles(const QStringList& titles, int current) {
    const QSignalBlocker blocker(m_list);
    m_list->clear();
    for (const QString& title : titles) {
        auto* item = new QListWidgetItem(title, m_list);
        item->setFlags(item->flags() | Qt::ItemIsEditable);  // F2 or double-click renames
    }
    if (current >= 0) m_list->setCurrentRow(current);
}

void ConversationSidebar::show_results(bool searching, const QStringList& results) {
    m_results->clear();
    m_results->setVisible(searching);
    m_list->setVisible(!searching);
    if (!searching) return;
    m_results->addItems(results);
    if (results.isEmpty()) m_results->addItem(tr("No matches"));
}

void ConversationSidebar::clear_search() {
    m_search->clear();
}

void ConversationSidebar::focus_search() {
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void ConversationSidebar::set_undo_visible(bool visible) {
    m_undo->setVisible(visible);
}

}  // namespace hearth::ui
