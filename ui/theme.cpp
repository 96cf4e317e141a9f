#include "ui/theme.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QFont>
#include <QPalette>
#include <QStyle>

namespace hearth::ui {
namespace {

QPalette dark_palette() {
    QPalette palette;
    const QColor window(0x20, 0x22, 0x27), base(0x18, 0x1a, 0x1f), text(0xe6, 0xe6, 0xe6);
    palette.setColor(QPalette::Window, window);
    palette.setColor(QPalette::WindowText, text);
    palette.setColor(QPalette::Base, base);
    palette.setColor(QPalette::AlternateBase, window);
    palette.setColor(QPalette::Text, text);
    palette.setColor(QPalette::Button, QColor(0x2c, 0x2f, 0x36));
    palette.setColor(QPalette::ButtonText, text);
    palette.setColor(QPalette::ToolTipBase, base);
    palette.setColor(QPalette::ToolTipText, text);
    palette.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xd6));
    palette.setColor(QPalette::HighlightedText, Qt::white);
    palette.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8f, 0x98));
    palette.setColor(QPalette::Link, QColor(0x6c, 0xb6, 0xff));
    palette.setColor(QPalette::Disabled, QPalette::Text, QColor(0x77, 0x77, 0x77));
    palette.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x77, 0x77, 0x77));
    return palette;
}

}  // namespace

void apply_theme(core::Theme theme, int font_size) {
    // Qt 6.4 has no colour-scheme hint: "system" is the style's own palette, which follows the
    // desktop's.
    static const QPalette system = QApplication::palette();
    switch (theme) {
        case core::Theme::Dark:
            QApplication::setPalette(dark_palette());
            break;
        case core::Theme::Light:
            QApplication::setPalette(QApplication::style()->standardPalette());
            break;
        case core::Theme::System:
            QApplication::setPalette(system);
            break;
    }
    QFont font = QApplication::font();
    font.setPointSize(font_size);
    QApplication::setFont(font);
}

void show_focus_frame(QAbstractItemView* view) {
    // The frame is as wide either way, so the rows do not move when the focus comes and goes.
    view->setStyleSheet(
        QStringLiteral("QAbstractItemView { border: 2px solid palette(mid); }"
                       "QAbstractItemView:focus { border: 2px solid "
                       "palette(highlight); }"));
}

bool is_dark() {
    return QApplication::palette().color(QPalette::Window).lightness() < 128;
}

}  // namespace hearth::ui
