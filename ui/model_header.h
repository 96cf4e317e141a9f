// The top of the chat window: which model runs and what it does (a model without a chat template
// continues text), why the last load failed (it stays until a load succeeds, where the status
// line would soon replace it), the loading progress with Cancel, and the Models…, Settings… and
// Performance buttons.
#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace hearth::ui {

class ElidedLabel;

class ModelHeader final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ModelHeader)

public:
    explicit ModelHeader(QWidget* parent = nullptr);

    // `purpose`: what the model does when that is not chatting; empty hides it.
    void show_model(const QString& text, const QString& purpose);
    // Empty hides it.
    void show_notice(const QString& text);
    void show_load_progress(int percent);
    void hide_load_progress();
    // The Performance button follows the dashboard's dock, however it was opened or closed.
    void set_dashboard_shown(bool shown);

signals:
    void chooseModelClicked();
    void settingsClicked();
    void cancelLoadClicked();
    void dashboardToggled(bool shown);

private:
    ElidedLabel* m_model = nullptr;
    QLabel* m_purpose = nullptr;
    QLabel* m_notice = nullptr;
    QProgressBar* m_load_progress = nullptr;
    QPushButton* m_cancel_load = nullptr;
    QPushButton* m_performance = nullptr;
};

}  // namespace hearth::ui
