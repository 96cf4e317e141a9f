// The global settings on disk: what is saved comes back, and a hand-edited value out of range
// falls back to its default.
#include "app/core/app_settings.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QSettings>

#include "tests/support/temp_files.h"

namespace hearth::core {
namespace {

// QSettings under a temporary directory for the test's lifetime.
class AppSettingsTest : public testing::Test {
protected:
    void SetUp() override {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope,
                           QString::fromStdString(m_directory.path().string()));
        QCoreApplication::setOrganizationName(QStringLiteral("hearth-settings-test"));
    }

    test::TempDirectory m_directory;
};

TEST_F(AppSettingsTest, WhatIsSavedComesBack) {
    GlobalSettings settings;
    settings.threads = 3;
    settings.backend = QStringLiteral("vulkan:1");
    settings.kv_cache = QStringLiteral("q8_0");
    settings.theme = Theme::Dark;
    save_global_settings(settings);
    EXPECT_EQ(load_global_settings(), settings);
    settings.kv_cache = QStringLiteral("f16");
    save_global_settings(settings);
    EXPECT_EQ(load_global_settings().kv_cache, "f16");
}

TEST_F(AppSettingsTest, DefaultsWhereNothingWasSaved) {
    EXPECT_EQ(load_global_settings(), GlobalSettings{});
    QSettings().setValue(QStringLiteral("engine/threads"), -4);
    EXPECT_EQ(load_global_settings().threads, 0);
}

}  // namespace
}  // namespace hearth::core
