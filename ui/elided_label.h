// A one-line label that shortens its text with "…" to the width it is given, instead of
// widening the window or wrapping a long name one word per line beside its neighbours (which
// squeezed the chat at 800×600). text() stays whole; the whole text is the tooltip when cut.
#pragma once

#include <QLabel>

namespace hearth::ui {

class ElidedLabel final : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(const QString& text, QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;
    // Call after setText(): the tooltip shows the whole text only while it is cut.
    void update_tooltip();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
};

}  // namespace hearth::ui
