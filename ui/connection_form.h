// The fields of one remote connection: its name, the server's base URL, the API key and a
// certificate file trusted for a self-signed server. It checks what it can before anything is
// stored: a name, unique among the connections, and a URL the remote client's own parser
// accepts (its message is shown as it words it).
#pragma once

#include <QStringList>
#include <QWidget>

#include <optional>

#include "app/core/remote_connection.h"

class QLabel;
class QLineEdit;
class QPushButton;

namespace hearth::ui {

class ConnectionForm final : public QWidget {
    Q_OBJECT

public:
    explicit ConnectionForm(QWidget* parent = nullptr);

    // Shows `connection` with an empty key field, which set_key() fills once the key is read.
    void show_connection(const core::RemoteConnection& connection);
    void clear();

    // The connection as typed, or nothing where it cannot be saved (the reason is shown).
    // `taken`: the names of the other connections.
    std::optional<core::RemoteConnection> checked(const QStringList& taken);

    QString key() const;
    // Whether the user typed in the key field since it was shown: a key read from the store
    // later must not overwrite it.
    bool key_edited() const;
    void set_key(const QString& key);

    void show_message(const QString& text, bool problem);

signals:
    void saveRequested();

private:
    QLineEdit* m_name = nullptr;
    QLineEdit* m_url = nullptr;
    QLineEdit* m_key = nullptr;
    QLineEdit* m_certificate = nullptr;
    QLabel* m_message = nullptr;
};

}  // namespace hearth::ui
