#include "ui/connection_form.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "engine/remote/remote_endpoint.h"
#include "engine/remote/remote_error.h"
#include "ui/message_label.h"

namespace hearth::ui {
namespace {

QLineEdit* make_field(const char* name, const QString& accessible, const QString& placeholder) {
    auto* field = new QLineEdit;
    field->setObjectName(QString::fromLatin1(name));
    field->setAccessibleName(accessible);
    field->setPlaceholderText(placeholder);
    return field;
}

}  // namespace

ConnectionForm::ConnectionForm(QWidget* parent) : QWidget(parent) {
    m_name = make_field("connectionName", tr("Connection name"), tr("e.g. GPU box"));
    m_url = make_field("connectionUrl", tr("Server address"), tr("e.g. http://gpu-box:8000/v1"));
    m_url->setToolTip(
        tr("The base URL of an OpenAI-compatible server: vLLM, llama.cpp's server, Ollama or "
           "another Hearth's hearth-server. \"/v1\" is added when the path lacks it."));
    m_key = make_field("connectionKey", tr("API key"), tr("none"));
    m_key->setEchoMode(QLineEdit::Password);
    m_key->setToolTip(tr("Kept in the system keyring, never in Hearth's settings file"));
    m_certificate = make_field("connectionCertificate", tr("Trusted certificate file"),
                               tr("none: the system's certificate authorities decide"));
    m_certificate->setToolTip(
        tr("A PEM certificate to trust for this connection only, for a server with a "
           "self-signed certificate"));
    auto* browse = new QPushButton(tr("Browse…"));
    browse->setObjectName(QStringLiteral("browseCertificate"));
    auto* certificate = new QHBoxLayout;
    certificate->addWidget(m_certificate, 1);
    certificate->addWidget(browse);
    auto* save = new QPushButton(tr("Save connection"));
    save->setObjectName(QStringLiteral("saveConnection"));
    m_message = make_message_label("connectionMessage");

    auto* layout = new QFormLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addRow(tr("Name:"), m_name);
    layout->addRow(tr("Address:"), m_url);
    layout->addRow(tr("API key:"), m_key);
    layout->addRow(tr("Certificate:"), certificate);
    layout->addRow(save);
    layout->addRow(m_message);

    connect(save, &QPushButton::clicked, this, &ConnectionForm::saveRequested);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Trust a server's certificate"),
                                                          {}, tr("PEM certificates (*.pem *.crt)"));
        if (!file.isEmpty()) m_certificate->setText(file);
    });
}

void ConnectionForm::show_connection(const core::RemoteConnection& connection) {
    m_name->setText(connection.name);
    m_url->setText(connection.base_url);
    m_certificate->setText(connection.trusted_certificate);
    m_key->clear();
    m_key->setModified(false);
    m_message->clear();
}

void ConnectionForm::clear() {
    show_connection({});
    m_name->setFocus();
}

std::optional<core::RemoteConnection> ConnectionForm::checked(const QStringList& taken) {
    core::RemoteConnection connection{.name = m_name->text().trimmed(),
                                      .base_url = m_url->text().trimmed(),
                                      .trusted_certificate = m_certificate->text().trimmed()};
    QString problem;
    if (connection.name.isEmpty()) {
        problem = tr("Give the connection a name.");
    } else if (taken.contains(connection.name)) {
        problem = tr("Another connection is already called \"%1\".").arg(connection.name);
    } else if (!connection.trusted_certificate.isEmpty() &&
               !QFileInfo(connection.trusted_certificate).isReadable()) {
        problem = tr("The certificate file %1 cannot be read.").arg(connection.trusted_certificate);
    } else {
        try {
            remote::parse_base_url(connection.base_url.toStdString());
        } catch (const remote::RemoteError& error) {
            problem = QString::fromStdString(error.what());
        }
    }
    if (!problem.isEmpty()) {
        show_message(problem, true);
        return std::nullopt;
    }
    return connection;
}

QString ConnectionForm::key() const {
    return m_key->text().trimmed();
}

bool ConnectionForm::key_edited() const {
    return m_key->isModified();
}

void ConnectionForm::set_key(const QString& key) {
    m_key->setText(key);
    m_key->setModified(false);
}

void ConnectionForm::show_message(const QString& text, bool problem) {
    ui::show_message(*m_message, text, problem);
}

}  // namespace hearth::ui
