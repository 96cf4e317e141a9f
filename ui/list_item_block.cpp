#include "ui/list_item_block.h"

#include <QHBoxLayout>
#include <QLabel>

#include "ui/prose_view.h"

namespace hearth::ui {
namespace {

// Bullets change with depth as in most renderers: •, ◦, ▪.
QString bullet(int indent) {
    static const QString bullets[] = {QStringLiteral("•"), QStringLiteral("◦"),
                                      QStringLiteral("▪")};
    return bullets[std::min(indent / 2, 2)];
}

}  // namespace

ListItemBlock::ListItemBlock(QWidget* parent)
    : QWidget(parent),
      m_layout(new QHBoxLayout(this)),
      m_marker(new QLabel),
      m_prose(new ProseView) {
    setObjectName(QStringLiteral("listItem"));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);  // as tall as its text
    m_marker->setObjectName(QStringLiteral("listMarker"));
    m_marker->setAlignment(Qt::AlignRight | Qt::AlignTop);
    // Room for "999." keeps the items of a list aligned whatever their numbers.
    m_marker->setMinimumWidth(m_marker->fontMetrics().horizontalAdvance(QStringLiteral("999.")));
    m_layout->setSpacing(6);
    m_layout->addWidget(m_marker, 0, Qt::AlignTop);
    m_layout->addWidget(m_prose, 1, Qt::AlignTop);
}

void ListItemBlock::set_item(int number, int indent, const QString& markdown) {
    m_marker->setText(number < 0 ? bullet(indent) : QStringLiteral("%1.").arg(number));
    // The Markdown's own indentation, in the width of the text's characters.
    m_layout->setContentsMargins(indent * fontMetrics().averageCharWidth(), 0, 0, 0);
    m_prose->set_markdown(markdown);
}

QString ListItemBlock::marker() const {
    return m_marker->text();
}

}  // namespace hearth::ui
