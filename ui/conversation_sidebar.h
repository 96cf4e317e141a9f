// The left side of the chat window: New chat, the search field and its results, the list of
// conversations, Delete and Undo, Export and Import. It shows what it is given and says what the
// user did; the window keeps the conversations themselves.
#pragma once

#include <QStringList>
#include <QWidget>

class QLineEdit;
class QListWidget;
class QPushButton;

namespace hearth::ui {

class ConversationSidebar final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConversationSidebar)

public:
    explicit ConversationSidebar(QWidget* parent = nullptr);

    // Lists `titles` (renamable in place) with row `current` selected, without saying so.
    void show_titles(const QStringList& titles, int current);
    // While `searching`, the results replace the list; `results` empty shows "No matches".
    void show_results(bool searching, const QStringList& results);
    void clear_search();
    // The search field takes the keyboard, its text selected so typing replaces it.
    void focus_search();
    void set_undo_visible(bool visible);

signals:
    void newChatClicked();
    void deleteClicked();
    void undoClicked();
    void exportClicked();
    void importClicked();
    void rowChosen(int row);
    void rowRenamed(int row, const QString& title);
    void searchChanged(const QString& query);
    void resultChosen(int row);

private:
    QListWidget* m_list = nullptr;
    QLineEdit* m_search = nullptr;
    QListWidget* m_results = nullptr;
    QPushButton* m_undo = nullptr;
};

}  // namespace hearth::ui
