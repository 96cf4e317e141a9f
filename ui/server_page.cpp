#include "ui/server_page.h"

#include <QCheckBox>
#include <QClipboard>
#include <QFileInfo>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSpinBox>

#include "app/core/app_settings.h"
#include "ui/server_load_view.h"

namespace hearth::ui {
namespace {

using core::ServerPhase;

constexpr int kKeyWords = 6;  // 32-bit words of randomness in a generated key: 192 bits

template <typename Widget>
Widget* named(Widget* widget, const char* name, const QString& accessible, const QString& tip) {
    widget->setObjectName(QLatin1String(name));
    widget->setAccessibleName(accessible);
    widget->setToolTip(tip);
    return widget;
}

QWidget* row(QWidget* main, QWidget* side) {
    auto* widget = new QWidget;
    auto* layout = new QHBoxLayout(widget);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(main, 1);
    layout->addWidget(side);
    return widget;
}

QString file_name(const QString& path) {
    return QFileInfo(path).fileName();
}

}  // namespace

ServerPage::ServerPage(const core::ServerSettings& settings, core::ServerStatus& status,
                       QWidget* parent)
    : QWidget(parent), m_status(status) {
    setObjectName(QStringLiteral("serverPage"));
    m_port = named(new QSpinBox, "serverPort", tr("Port"),
                   tr("The port the server listens on, on this computer only (127.0.0.1). 0 lets "
                      "the system pick a free port each time the server starts. Change it while "
                      "the server is stopped."));
    m_port->setRange(0, 65535);
    m_port->setSpecialValueText(tr("any free port"));
    m_port->setValue(settings.port);
    m_rows = named(new QSpinBox, "serverRows", tr("Rows"),
                   tr("How many requests the server answers at once, decoded together (1 to %1). "
                      "More rows serve more programs at the same time and reserve more memory "
                      "for their conversations; further requests wait in a queue.")
                       .arg(SchedulerOptions::kMaxRows));
    m_rows->setRange(1, SchedulerOptions::kMaxRows);
    m_rows->setValue(settings.rows);
    m_key = named(new QLineEdit(settings.api_key), "serverApiKey", tr("API key"),
                  tr("Optional. When set, programs must send it as “Authorization: Bearer KEY” "
                     "(the API key field of OpenAI clients) or they are refused. When empty, any "
                     "program on this computer may use the server."));
    m_key->setPlaceholderText(tr("none"));
    m_generate = named(new QPushButton(tr("Generate")), "generateApiKey", tr("Generate a key"),
                       tr("Fill in a new random key."));
    m_keep = named(new QCheckBox(tr("Keep conversations made through the API in my history")),
                   "keepApiHistory", tr("Keep API conversations"),
                   tr("When on, every chat answered through the API is saved with your "
                      "conversations, titled “API: …”. When off, nothing the API answers is "
                      "kept."));
    m_keep->setChecked(settings.keep_in_history);
    m_toggle = named(new QPushButton, "serverStartStop", tr("Start or stop the server"), {});
    m_state = named(new QLabel, "serverState", tr("Server state"),
                    tr("What the server is doing, or why it could not start."));
    m_state->setWordWrap(true);
    m_state->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_model_note = named(new QLabel, "serverModelNote", tr("Model served"),
                         tr("The server serves the model the window had loaded when it started."));
    m_model_note->setWordWrap(true);
    m_load = new ServerLoadView(status, ServerLoadView::Chart::None);

    auto* form = new QFormLayout(this);
    form->addRow(tr("Port"), m_port);
    form->addRow(tr("Rows"), m_rows);
    form->addRow(tr("API key"), row(m_key, m_generate));
    form->addRow(QString(), m_keep);
    form->addRow(QString(), m_toggle);
    form->addRow(tr("Status"), m_state);
    form->addRow(QString(), m_model_note);
    form->addRow(tr("Address"), build_address_row());
    form->addRow(tr("Load"), m_load);

    connect(m_toggle, &QPushButton::clicked, this, &ServerPage::toggle);
    connect(m_generate, &QPushButton::clicked, this, &ServerPage::generate_key);
    connect(m_key, &QLineEdit::textChanged, this, &ServerPage::check_key);
    connect(m_port, &QSpinBox::valueChanged, this, &ServerPage::show_url);
    connect(&status, &core::ServerStatus::stateChanged, this, &ServerPage::show_state);
    show_state();
    check_key();
}

QWidget* ServerPage::build_address_row() {
    m_url = named(new QLineEdit, "serverUrl", tr("Server address"),
                  tr("The base URL to give programs that speak OpenAI's API."));
    m_url->setReadOnly(true);
    m_url->setPlaceholderText(tr("chosen when the server starts"));
    m_copy = named(new QPushButton(tr("Copy")), "copyServerUrl", tr("Copy the address"),
                   tr("Copy the address to the clipboard."));
    connect(m_copy, &QPushButton::clicked, this,
            [this] { QGuiApplication::clipboard()->setText(m_url->text()); });
    return row(m_url, m_copy);
}

core::ServerSettings ServerPage::settings() const {
    return {.port = m_port->value(),
            .rows = m_rows->value(),
            .api_key = m_key->text(),
            .keep_in_history = m_keep->isChecked()};
}

bool ServerPage::valid() const {
    return core::valid_api_key(m_key->text());
}

void ServerPage::toggle() {
    if (m_status.state().phase == ServerPhase::Stopped) {
        if (valid()) m_status.request_start(settings());
    } else {
        m_status.request_stop();
    }
}

void ServerPage::generate_key() {
    QString key = QStringLiteral("sk-hearth-");
    for (int i = 0; i < kKeyWords; ++i)
        key += QStringLiteral("%1").arg(QRandomGenerator::system()->generate(), 8, 16, QChar('0'));
    m_key->setText(key);
}

void ServerPage::check_key() {
    m_key->setStyleSheet(valid() ? QString() : QStringLiteral("color: red"));
    m_key->setAccessibleDescription(
        valid() ? QString() : tr("A key is letters, digits and punctuation, without spaces."));
    show_state();
    emit validityChanged();
}

void ServerPage::show_state() {
    const auto& state = m_status.state();
    const bool stopped = state.phase == ServerPhase::Stopped;
    for (QWidget* setting : std::initializer_list<QWidget*>{m_port, m_rows, m_key, m_generate})
        setting->setEnabled(stopped);
    m_toggle->setText(stopped                                ? tr("Start server")
                      : state.phase == ServerPhase::Stopping ? tr("Stopping…")
                                                             : tr("Stop server"));
    m_toggle->setEnabled(state.phase != ServerPhase::Stopping && (!stopped || valid()));
    m_toggle->setToolTip(
        stopped ? tr("Start serving the window's model to other programs. The server loads it "
                     "once more; the file's memory is shared, so its weights are not held twice.")
                : tr("Stop the server: answers being written end, waiting requests are refused."));
    m_state->setText(state_text());
    const bool other_model = !stopped && !m_status.window_model().isEmpty() &&
                             m_status.window_model() != state.model_file;
    m_model_note->setVisible(other_model);
    if (other_model) {
        m_model_note->setText(
            tr("The window now has %1 loaded; the server still serves %2 "
               "until you stop and start it again.")
                .arg(file_name(m_status.window_model()), file_name(state.model_file)));
    }
    show_url();
}

QString ServerPage::state_text() const {
    const auto& state = m_status.state();
    switch (state.phase) {
        case ServerPhase::Starting:
            return tr("Starting: loading %1…").arg(file_name(state.model_file));
        case ServerPhase::Running:
            return tr("Serving %1 on port %2 (%3, %4 rows).")
                .arg(file_name(state.model_file))
                .arg(state.port)
                .arg(state.backend)
                .arg(state.rows);
        case ServerPhase::Stopping:
            return tr("Stopping: the answers being written end first…");
        case ServerPhase::Stopped:
            break;
    }
    return state.error.isEmpty() ? tr("Stopped.")
                                 : tr("The server could not start: %1").arg(state.error);
}

void ServerPage::show_url() {
    const auto& state = m_status.state();
    const int port = m_status.running() ? state.port : m_port->value();
    m_url->setText(port > 0 ? core::server_url(port) : QString());
    m_copy->setEnabled(port > 0);
}

}  // namespace hearth::ui
