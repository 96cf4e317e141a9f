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
    settings.speculative = true;
    settings.draft_model = QStringLiteral("/models/qwen3-0.6b-Q8_0.gguf");
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

// System prompt presets and the one new chats start with come back as saved, and a shorter list
// replaces a longer one.
TEST_F(AppSettingsTest, SystemPromptPresetsComeBack) {
    GlobalSettings settings;
    save_preset(settings.system_prompts, "Brief", "Be brief.");
    save_preset(settings.system_prompts, "Pirate", "Talk like a pirate.\nAlways.");
    settings.new_chat_prompt = QStringLiteral("Pirate");
    save_global_settings(settings);
    EXPECT_EQ(load_global_settings(), settings);
    delete_preset(settings.system_prompts, "Brief");
    settings.new_chat_prompt.clear();
    save_global_settings(settings);
    const GlobalSettings loaded = load_global_settings();
    ASSERT_EQ(loaded.system_prompts.size(), 1u);
    EXPECT_EQ(loaded.system_prompts[0].text, "Talk like a pirate.\nAlways.");
    EXPECT_EQ(loaded.new_chat_prompt, "");
}

// The in-process server's settings come back as saved; off by default, history included.
TEST_F(AppSettingsTest, TheServersSettingsComeBack) {
    EXPECT_FALSE(load_global_settings().server.keep_in_history);
    GlobalSettings settings;
    settings.server = {.port = 0, .rows = 32, .api_key = "sk-local-1", .keep_in_history = true};
    save_global_settings(settings);
    EXPECT_EQ(load_global_settings().server, settings.server);
}

// A hand-edited port, row count or key the server could not use falls back to the default.
TEST_F(AppSettingsTest, AServerSettingItCannotUseFallsBack) {
    QSettings store;
    store.setValue(QStringLiteral("server/port"), 70000);
    store.setValue(QStringLiteral("server/rows"), 33);
    store.setValue(QStringLiteral("server/apiKey"), QStringLiteral("two words"));
    const ServerSettings loaded = load_global_settings().server;
    EXPECT_EQ(loaded, ServerSettings{});
    store.setValue(QStringLiteral("server/rows"), 0);
    store.setValue(QStringLiteral("server/apiKey"), QStringLiteral("caf\u00e9"));
    EXPECT_EQ(load_global_settings().server.rows, ServerSettings{}.rows);
    EXPECT_TRUE(load_global_settings().server.api_key.isEmpty());
}

// Remote connections come back in their order, a shorter list replaces a longer one, and one a
// hand edit left without a name or an address is dropped.
TEST_F(AppSettingsTest, RemoteConnectionsComeBack) {
    GlobalSettings settings;
    settings.connections = {
        {.name = "gpu-box", .base_url = "http://gpu-box:8000/v1"},
        {.name = "lab",
         .base_url = "https://lab.example:8443",
         .trusted_certificate = "/etc/hearth/lab.pem"},
    };
    save_global_settings(settings);
    EXPECT_EQ(load_global_settings().connections, settings.connections);
    settings.connections.erase(settings.connections.begin());
    save_global_settings(settings);
    EXPECT_EQ(load_global_settings().connections, settings.connections);

    QSettings store;
    store.beginWriteArray(QStringLiteral("remote/connections"));
    store.setArrayIndex(1);
    store.setValue(QStringLiteral("name"), QStringLiteral("no address"));
    store.endArray();
    EXPECT_EQ(load_global_settings().connections, settings.connections);
}

// The remote model in use comes back by its connection's name, and an empty one (the local model
// answers) replaces it.
TEST_F(AppSettingsTest, TheRemoteModelInUseComesBack) {
    GlobalSettings settings;
    settings.remote_connection = "gpu-box";
    settings.remote_model = "llama-3.1-70b";
    save_global_settings(settings);
    EXPECT_EQ(load_global_settings().remote_connection, "gpu-box");
    EXPECT_EQ(load_global_settings().remote_model, "llama-3.1-70b");
    settings.remote_connection.clear();
    settings.remote_model.clear();
    save_global_settings(settings);
    EXPECT_EQ(load_global_settings(), settings);
}

TEST(ApiKey, IsWhatAnAuthorizationHeaderCarries) {
    EXPECT_TRUE(valid_api_key(QString()));
    EXPECT_TRUE(valid_api_key(QStringLiteral("sk-hearth_0123.ABC~")));
    EXPECT_FALSE(valid_api_key(QStringLiteral("sk hearth")));
    EXPECT_FALSE(valid_api_key(QStringLiteral("sk-\tx")));
    EXPECT_FALSE(valid_api_key(QStringLiteral("sk-\u00e9")));
}

}  // namespace
}  // namespace hearth::core
