// The first window: a transcript, a prompt line, send and stop. Knows nothing of the engine;
// it speaks only through signals and slots that app/ wires to the worker.
#pragma once

#include <QMainWindow>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace hearth::ui {

class MainWindow final : public QMainWindow {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    explicit MainWindow(QWidget* parent = nullptr);

signals:
    void sendRequested(const QString& prompt);
    void stopRequested();

public slots:
    void showModel(const QString& description);
    void appendText(const QString& text);
    void showFinished(const QString& summary);
    void showError(const QString& message);

private:
    void send();
    void setGenerating(bool generating);

    QLabel* m_model = nullptr;
    QPlainTextEdit* m_transcript = nullptr;
    QLineEdit* m_prompt = nullptr;
    QPushButton* m_send = nullptr;
    QPushButton* m_stop = nullptr;
    QLabel* m_status = nullptr;
};

}  // namespace hearth::ui
