// One item of a list in an answer: its marker ("5.", "•") in a column of its own and its text
// beside it, indented as deep as the item is nested. Qt's Markdown numbers every list from 1, so
// an answer's lists are drawn item by item with the numbers the view gives them.
#pragma once

#include <QWidget>

class QLabel;
class QHBoxLayout;

namespace hearth::ui {

class ProseView;

class ListItemBlock final : public QWidget {
    Q_OBJECT

public:
    explicit ListItemBlock(QWidget* parent = nullptr);
    // `number` < 0: a bullet. `indent`: the columns before the item's marker in the Markdown.
    void set_item(int number, int indent, const QString& markdown);
    QString marker() const;

private:
    QHBoxLayout* m_layout;
    QLabel* m_marker;
    ProseView* m_prose;
};

}  // namespace hearth::ui
