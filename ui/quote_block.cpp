#include "ui/quote_block.h"

#include <QHBoxLayout>

#include "ui/prose_view.h"

namespace hearth::ui {
namespace {

constexpr int kBarWidth = 3;

QWidget* filled(const QColor& colour, QWidget* widget) {
    QPalette palette = widget->palette();
    palette.setColor(QPalette::Window, colour);
    widget->setPalette(palette);
    widget->setAutoFillBackground(true);
    return widget;
}

}  // namespace

QuoteBlock::QuoteBlock(bool dark, QWidget* parent) : QFrame(parent), m_prose(new ProseView) {
    setObjectName(QStringLiteral("quote"));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);  // as tall as its text
    filled(dark ? QColor(0x26, 0x2a, 0x31) : QColor(0xf4, 0xf5, 0xf7), this);
    auto* bar = filled(dark ? QColor(0x5c, 0x63, 0x70) : QColor(0xc2, 0xc7, 0xd0), new QWidget);
    bar->setObjectName(QStringLiteral("quoteBar"));
    bar->setFixedWidth(kBarWidth);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 4, 8, 4);
    layout->setSpacing(10);
    layout->addWidget(bar);
    layout->addWidget(m_prose, 1);
}

void QuoteBlock::set_markdown(const QString& markdown) {
    m_prose->set_markdown(markdown);
}

}  // namespace hearth::ui
