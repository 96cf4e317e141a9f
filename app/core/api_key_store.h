// Where the API keys of remote engines live: the system keyring (the Secret Service — GNOME
// Keyring, KWallet — through QtKeychain), never the plain settings file. Where no keyring
// answers (a bare desktop, a headless machine), a key goes to a file only its owner can read,
// and the result says so and names the file, so the window can tell the user where it is.
// The calls wait for the keyring; make them off the GUI thread (the engine's worker does). Any
// thread may call: the calls run one at a time on one thread of the process's (QtKeychain
// cannot take jobs from several).
#pragma once

#include <QString>

namespace hearth::core {

enum class KeyLocation { Keyring, File };

struct KeyResult {
    bool ok = false;
    KeyLocation location = KeyLocation::Keyring;
    QString key;     // read(): the key; empty when none is stored
    QString detail;  // the file's path (File), or why it failed
};

class ApiKeyStore final {
public:
    // `fallback_file`: where keys go when no keyring answers.
    ApiKeyStore(QString service, QString fallback_file);

    KeyResult store(const QString& connection, const QString& key) const;
    KeyResult read(const QString& connection) const;
    // Removes the key from wherever it is.
    KeyResult remove(const QString& connection) const;

    // The default fallback: api-keys.json in the app's data folder.
    static QString default_fallback_file();
    // Where the app keeps its connections' keys: the keyring's "hearth" service, or the default
    // fallback file. The connections dialog stores them here and the engine's worker reads them
    // here, so both must use this.
    static ApiKeyStore for_app();

private:
    KeyResult file_store(const QString& connection, const QString& key) const;
    KeyResult file_read(const QString& connection) const;
    KeyResult file_remove(const QString& connection) const;

    QString m_service;
    QString m_fallback_file;
};

}  // namespace hearth::core
