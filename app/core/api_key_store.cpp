#include "app/core/api_key_store.h"

#include <qt6keychain/keychain.h>

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusReply>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>
#include <QThread>

#include <memory>
#include <mutex>

namespace hearth::core {
namespace {

// QtKeychain runs every job through one JobExecutor, a QObject that belongs to the thread that
// first used it and is not safe to reach from another (jobs from two threads crash it). So every
// job of the process runs here, on one thread started at the first call and running its event
// loop until the process ends; callers on any thread wait for theirs, one at a time.
class KeyringThread final {
public:
    KeyringThread() {
        m_thread.setObjectName(QStringLiteral("keyring"));
        m_context->moveToThread(&m_thread);
        m_thread.start();
    }
    ~KeyringThread() {
        m_thread.quit();
        m_thread.wait();
    }
    Q_DISABLE_COPY_MOVE(KeyringThread)

    template <typename Work>
    void run(Work work) {
        const std::lock_guard one_at_a_time(m_mutex);
        QMetaObject::invokeMethod(m_context.get(), std::move(work), Qt::BlockingQueuedConnection);
    }

private:
    std::mutex m_mutex;
    QThread m_thread;
    // Deleted after the thread has ended (members go in reverse order).
    std::unique_ptr<QObject> m_context = std::make_unique<QObject>();
};

KeyringThread& keyring_thread() {
    static KeyringThread thread;  // one for the process, as QtKeychain's executor is
    return thread;
}

// The fallback file is read, changed and written there too, so two threads' keys cannot race.
template <typename Work>
KeyResult on_keyring_thread(Work work) {
    KeyResult result;
    keyring_thread().run([&] { result = work(); });
    return result;
}

// Runs a keychain job to its end in a local event loop (on the keyring thread).
void run(QKeychain::Job& job) {
    job.setAutoDelete(false);
    job.setInsecureFallback(false);  // its fallback is a plain settings file: ours is explicit
    QEventLoop loop;
    QObject::connect(&job, &QKeychain::Job::finished, &loop, &QEventLoop::quit);
    job.start();
    loop.exec();
}

// Whether a Secret Service can answer: a session bus, and the service running or startable
// on it. Asked before each job, so that "no keyring here" (the file is used) is told apart from
// a keyring that refused (the user is told why) without reading error texts.
bool keyring_available() {
    const QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) return false;
    const QString service = QStringLiteral("org.freedesktop.secrets");
    if (bus.interface()->isServiceRegistered(service)) return true;
    const QDBusReply<QStringList> startable =
        bus.interface()->call(QStringLiteral("ListActivatableNames"));
    return startable.isValid() && startable.value().contains(service);
}

QJsonObject read_keys(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

bool write_keys(const QString& path, const QJsonObject& keys) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return false;
    // Owner-only before any key is written into it.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(keys).toJson());
    return file.commit();
}

}  // namespace

ApiKeyStore::ApiKeyStore(QString service, QString fallback_file)
    : m_service(std::move(service)), m_fallback_file(std::move(fallback_file)) {}

QString ApiKeyStore::default_fallback_file() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
           QStringLiteral("/api-keys.json");
}

ApiKeyStore ApiKeyStore::for_app() {
    return {QStringLiteral("hearth"), default_fallback_file()};
}

KeyResult ApiKeyStore::store(const QString& connection, const QString& key) const {
    return on_keyring_thread([&]() -> KeyResult {
        if (!keyring_available()) return file_store(connection, key);
        QKeychain::WritePasswordJob job(m_service);
        job.setKey(connection);
        job.setTextData(key);
        run(job);
        if (job.error() == QKeychain::NoError) {
            file_remove(connection);  // an older copy from a time without a keyring
            return {.ok = true, .location = KeyLocation::Keyring};
        }
        return {.ok = false, .detail = job.errorString()};
    });
}

KeyResult ApiKeyStore::read(const QString& connection) const {
    return on_keyring_thread([&]() -> KeyResult {
        if (!keyring_available()) return file_read(connection);
        QKeychain::ReadPasswordJob job(m_service);
        job.setKey(connection);
        run(job);
        if (job.error() == QKeychain::NoError) {
            return {.ok = true, .location = KeyLocation::Keyring, .key = job.textData()};
        }
        // Not in the keyring: perhaps kept in the file from a time without one.
        if (job.error() == QKeychain::EntryNotFound) return file_read(connection);
        return {.ok = false, .detail = job.errorString()};
    });
}

KeyResult ApiKeyStore::remove(const QString& connection) const {
    return on_keyring_thread([&]() -> KeyResult {
        if (!keyring_available()) return file_remove(connection);
        QKeychain::DeletePasswordJob job(m_service);
        job.setKey(connection);
        run(job);
        const KeyResult file = file_remove(connection);
        if (job.error() == QKeychain::NoError || job.error() == QKeychain::EntryNotFound)
            return file;
        return {.ok = false, .detail = job.errorString()};
    });
}

KeyResult ApiKeyStore::file_store(const QString& connection, const QString& key) const {
    QJsonObject keys = read_keys(m_fallback_file);
    keys[connection] = key;
    if (!write_keys(m_fallback_file, keys)) {
        return {.ok = false,
                .location = KeyLocation::File,
                .detail = QStringLiteral("no keyring is running, and %1 cannot be written")
                              .arg(m_fallback_file)};
    }
    return {.ok = true, .location = KeyLocation::File, .detail = m_fallback_file};
}

KeyResult ApiKeyStore::file_read(const QString& connection) const {
    return {.ok = true,
            .location = KeyLocation::File,
            .key = read_keys(m_fallback_file).value(connection).toString(),
            .detail = m_fallback_file};
}

KeyResult ApiKeyStore::file_remove(const QString& connection) const {
    QJsonObject keys = read_keys(m_fallback_file);
    if (!keys.contains(connection)) {
        return {.ok = true, .location = KeyLocation::File, .detail = m_fallback_file};
    }
    keys.remove(connection);
    const bool written = write_keys(m_fallback_file, keys);
    return {.ok = written, .location = KeyLocation::File, .detail = m_fallback_file};
}

}  // namespace hearth::core
