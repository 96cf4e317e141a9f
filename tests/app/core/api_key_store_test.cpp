// API keys kept where the machine keeps secrets. ctest runs this twice: plainly, where no
// keyring answers (the key must go to an owner-only file the result names), and inside a
// private D-Bus session with a real GNOME Keyring (with_keyring.sh sets HEARTH_TEST_KEYRING=1;
// the key must then be in the keyring and in no file).
#include "app/core/api_key_store.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QUuid>

#include "tests/support/temp_files.h"

namespace hearth::core {
namespace {

bool keyring_expected() {
    return qEnvironmentVariableIntValue("HEARTH_TEST_KEYRING") == 1;
}

QString file_text(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

TEST(ApiKeyStore, AKeyIsStoredReadAndRemovedWhereTheMachineKeepsSecrets) {
    const test::TempDirectory folder;
    const QString fallback = QString::fromStdString((folder.path() / "api-keys.json").string());
    const ApiKeyStore store(QStringLiteral("hearth-test"), fallback);
    // A fresh name, so a real keyring's earlier runs cannot answer for this one.
    const QString connection = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const QString key = QStringLiteral("sk-test-") + connection;
    const KeyLocation expected = keyring_expected() ? KeyLocation::Keyring : KeyLocation::File;

    const KeyResult stored = store.store(connection, key);
    ASSERT_TRUE(stored.ok) << stored.detail.toStdString();
    EXPECT_EQ(stored.location, expected);
    if (expected == KeyLocation::File) {
        EXPECT_EQ(stored.detail, fallback);  // the window names it
        EXPECT_TRUE(file_text(fallback).contains(key));
        EXPECT_EQ(QFile::permissions(fallback), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                    QFileDevice::ReadUser | QFileDevice::WriteUser);
    } else {
        EXPECT_FALSE(file_text(fallback).contains(key));
    }

    const KeyResult read = store.read(connection);
    ASSERT_TRUE(read.ok) << read.detail.toStdString();
    EXPECT_EQ(read.key, key);
    EXPECT_EQ(read.location, expected);

    ASSERT_TRUE(store.remove(connection).ok);
    const KeyResult gone = store.read(connection);
    EXPECT_TRUE(gone.ok);
    EXPECT_TRUE(gone.key.isEmpty());
    EXPECT_FALSE(file_text(fallback).contains(key));
}

TEST(ApiKeyStore, KeysOfDifferentConnectionsStayApart) {
    const test::TempDirectory folder;
    const ApiKeyStore store(QStringLiteral("hearth-test"),
                            QString::fromStdString((folder.path() / "keys.json").string()));
    const QString first = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const QString second = QUuid::createUuid().toString(QUuid::WithoutBraces);
    ASSERT_TRUE(store.store(first, QStringLiteral("one")).ok);
    ASSERT_TRUE(store.store(second, QStringLiteral("two")).ok);
    EXPECT_EQ(store.read(first).key, QStringLiteral("one"));
    EXPECT_EQ(store.read(second).key, QStringLiteral("two"));
    ASSERT_TRUE(store.remove(first).ok);
    EXPECT_TRUE(store.read(first).key.isEmpty());
    EXPECT_EQ(store.read(second).key, QStringLiteral("two"));
    store.remove(second);
}

}  // namespace
}  // namespace hearth::core
