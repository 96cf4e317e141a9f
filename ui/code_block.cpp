#include "ui/code_block.h"

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QVBoxLayout>

#include "ui/syntax_highlighter.h"

namespace hearth::ui {

CodeBlock::CodeBlock(const QString& language, bool dark, QWidget* parent)
    : QFrame(parent), m_language(language) {
    setObjectName(QStringLiteral("codeBlock"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    QPalette palette = this->palette();
    palette.setColor(QPalette::Window, dark ? QColor(0x28, 0x2c, 0x34) : QColor(0xf3, 0xf4, 0xf6));
    palette.setColor(QPalette::Base, palette.color(QPalette::Window));
    setPalette(palette);

    auto* header = new QHBoxLayout;
    auto* label = new QLabel(language.isEmpty() ? tr("code") : language);
    label->setObjectName(QStringLiteral("codeLanguage"));
    auto* copy = new QPushButton(tr("Copy"));
    copy->setObjectName(QStringLiteral("copyCode"));
    copy->setAccessibleName(tr("Copy code"));
    copy->setFlat(true);
    header->addWidget(label);
    header->addStretch();
    header->addWidget(copy);

    m_text = new QPlainTextEdit;
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setFrameShape(QFrame::NoFrame);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_text->setAccessibleName(tr("Code"));
    new SyntaxHighlighter(m_text->document(), language, dark);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 8);
    layout->addLayout(header);
    layout->addWidget(m_text);
    connect(copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(code()); });
    // A line wider than the block scrolls inside it; the bar that appears for it must not hide
    // the last line.
    connect(m_text->horizontalScrollBar(), &QScrollBar::rangeChanged, this, &CodeBlock::fit_height);
}

void CodeBlock::set_code(const QString& code) {
    if (code == m_text->toPlainText()) return;
    // Streaming code grows at its end: append instead of re-laying-out everything.
    const QString current = m_text->toPlainText();
    if (!current.isEmpty() && code.startsWith(current)) {
        QTextCursor cursor(m_text->document());
        cursor.movePosition(QTextCursor::End);
        cursor.insertText(code.mid(current.size()));
    } else {
        m_text->setPlainText(code);
    }
    fit_height();
}

QString CodeBlock::code() const {
    return m_text->toPlainText();
}

void CodeBlock::fit_height() {
    const int lines = m_text->document()->blockCount();
    const int line_height = m_text->fontMetrics().lineSpacing();
    const QScrollBar* bar = m_text->horizontalScrollBar();
    const int bar_height = bar->maximum() > 0 ? bar->sizeHint().height() : 0;
    m_text->setFixedHeight(lines * line_height + 2 * m_text->frameWidth() + 12 + bar_height);
}

}  // namespace hearth::ui
