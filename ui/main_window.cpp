#include "ui/main_window.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QTextCursor>
#include <QVBoxLayout>

namespace hearth::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Hearth"));
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    m_model = new QLabel(tr("Loading model…"), central);
    m_model->setObjectName(QStringLiteral("model"));
    m_transcript = new QPlainTextEdit(central);
    m_transcript->setReadOnly(true);
    m_transcript->setObjectName(QStringLiteral("transcript"));
    m_transcript->setAccessibleName(tr("Transcript"));
    m_prompt = new QLineEdit(central);
    m_prompt->setPlaceholderText(tr("Start a story…"));
    m_prompt->setObjectName(QStringLiteral("prompt"));
    m_prompt->setAccessibleName(tr("Prompt"));
    m_send = new QPushButton(tr("Send"), central);
    m_send->setObjectName(QStringLiteral("send"));
    m_stop = new QPushButton(tr("Stop"), central);
    m_stop->setObjectName(QStringLiteral("stop"));
    auto* row = new QHBoxLayout;
    row->addWidget(m_prompt, 1);
    row->addWidget(m_send);
    row->addWidget(m_stop);
    layout->addWidget(m_model);
    layout->addWidget(m_transcript, 1);
    layout->addLayout(row);
    setCentralWidget(central);
    m_status = new QLabel(central);
    m_status->setObjectName(QStringLiteral("status"));
    statusBar()->addWidget(m_status, 1);
    resize(760, 540);

    connect(m_send, &QPushButton::clicked, this, &MainWindow::send);
    connect(m_prompt, &QLineEdit::returnPressed, this, &MainWindow::send);
    connect(m_stop, &QPushButton::clicked, this, &MainWindow::stopRequested);
    setGenerating(false);
    m_send->setEnabled(false);
}

void MainWindow::send() {
    const QString prompt = m_prompt->text();
    if (prompt.trimmed().isEmpty() || !m_send->isEnabled()) return;
    m_transcript->moveCursor(QTextCursor::End);
    if (!m_transcript->document()->isEmpty()) m_transcript->insertPlainText(QStringLiteral("\n\n"));
    m_transcript->insertPlainText(prompt);
    m_prompt->clear();
    setGenerating(true);
    emit sendRequested(prompt);
}

void MainWindow::showModel(const QString& description) {
    m_model->setText(description);
    setGenerating(false);
}

void MainWindow::appendText(const QString& text) {
    m_transcript->moveCursor(QTextCursor::End);
    m_transcript->insertPlainText(text);
}

void MainWindow::showFinished(const QString& summary) {
    m_status->setText(summary);
    setGenerating(false);
}

void MainWindow::showError(const QString& message) {
    m_status->setText(tr("Error: %1").arg(message));
    setGenerating(false);
}

void MainWindow::setGenerating(bool generating) {
    m_send->setEnabled(!generating);
    m_stop->setEnabled(generating);
}

}  // namespace hearth::ui
