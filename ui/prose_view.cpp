#include "ui/prose_view.h"

#include <QAbstractTextDocumentLayout>
#include <QtMath>

namespace hearth::ui {

ProseView::ProseView(QWidget* parent) : QTextEdit(parent) {
    setObjectName(QStringLiteral("prose"));
    setReadOnly(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    setTabChangesFocus(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    // The message's own background shows through, tinted or not.
    viewport()->setAutoFillBackground(false);
    document()->setDocumentMargin(0);
    connect(document()->documentLayout(), &QAbstractTextDocumentLayout::documentSizeChanged, this,
            &ProseView::fit_height);
    fit_height();
}

void ProseView::set_markdown(const QString& markdown) {
    if (markdown == m_markdown) return;
    m_markdown = markdown;
    setMarkdown(markdown);
}

void ProseView::fit_height() {
    setFixedHeight(qCeil(document()->size().height()) + 2 * frameWidth());
}

QSize ProseView::sizeHint() const {
    return {QTextEdit::sizeHint().width(), height()};
}

QSize ProseView::minimumSizeHint() const {
    return {0, height()};
}

}  // namespace hearth::ui
