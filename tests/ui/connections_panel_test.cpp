// The model picker's Connections tab over real sockets: hearth-server in this process (its API
// key checked), a scripted server that refuses, answers 401 or stalls, and a TLS server with a
// self-signed certificate. The settings go to a
// temporary QSettings file. ctest runs this twice, as api_key_store_test: with no keyring (keys
// go to the ApiKeyStore's fallback file, in a temporary folder) and inside a private D-Bus
// session with a real GNOME Keyring (HEARTH_TEST_KEYRING=1). The panel's key calls run on the
// thread pool and this test's own on the GUI thread: both must reach the keyring safely.
#include "ui/connections_panel.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QTabWidget>
#include <QTest>
#include <QThreadPool>

#include <httplib.h>

#include <memory>
#include <thread>

#include "app/core/app_settings.h"
#include "engine/remote/remote_endpoint.h"
#include "engine/remote/remote_error.h"
#include "tests/support/local_api_server.h"
#include "tests/support/scripted_http_server.h"
#include "tests/support/self_signed_certificate.h"
#include "tests/support/temp_files.h"
#include "ui/model_picker.h"

namespace hearth::ui {
namespace {

using namespace std::chrono_literals;
using test::ScriptedHttpServer;

constexpr int kPatienceMs = 15'000;

bool keyring_expected() {
    return qEnvironmentVariableIntValue("HEARTH_TEST_KEYRING") == 1;
}

class ConnectionsTest : public testing::Test {
protected:
    void SetUp() override {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope,
                           QString::fromStdString(m_folder.path().string()));
        QCoreApplication::setOrganizationName(QStringLiteral("hearth-connections-test"));
    }

    core::ApiKeyStore keys() const { return {QStringLiteral("hearth-test"), key_file()}; }
    QString key_file() const {
        return QString::fromStdString((m_folder.path() / "api-keys.json").string());
    }

    // A shown picker on its Connections tab, saving the connections as the window does.
    std::unique_ptr<ModelPicker> open_picker(std::vector<core::RemoteConnection> connections = {},
                                             std::optional<core::RemoteChoice> remote = {}) {
        auto picker = std::make_unique<ModelPicker>(
            ModelPicker::Scan{}, ModelPicker::Setup{.connections = std::move(connections),
                                                    .remote = std::move(remote),
                                                    .keys = keys()});
        QObject::connect(picker.get(), &ModelPicker::connectionsChanged,
                         [](const std::vector<core::RemoteConnection>& saved) {
                             core::GlobalSettings settings = core::load_global_settings();
                             settings.connections = saved;
                             core::save_global_settings(settings);
                         });
        picker->findChild<QTabWidget*>("modelSources")->setCurrentWidget(&panel(*picker));
        picker->show();
        return picker;
    }

    static ConnectionsPanel& panel(const ModelPicker& picker) { return picker.connections_panel(); }

    template <typename Widget>
    static Widget& child(const ModelPicker& picker, const char* name) {
        auto* widget = picker.findChild<Widget*>(name);
        EXPECT_NE(widget, nullptr) << name;
        return *widget;
    }

    static void type(const ModelPicker& picker, const char* field, const QString& text) {
        auto& edit = child<QLineEdit>(picker, field);
        edit.selectAll();
        edit.del();
        QTest::keyClicks(&edit, text);
    }

    static void wait_until_idle(const ModelPicker& picker) {
        ASSERT_TRUE(QTest::qWaitFor([&] { return !panel(picker).busy(); }, kPatienceMs));
    }

    // Fills in a new connection and saves it, then waits for its key to be stored and its
    // models listed.
    static void add_connection(const ModelPicker& picker, const QString& name, const QString& url,
                               const QString& key = {}) {
        child<QPushButton>(picker, "addConnection").click();
        type(picker, "connectionName", name);
        type(picker, "connectionUrl", url);
        type(picker, "connectionKey", key);
        child<QPushButton>(picker, "saveConnection").click();
        wait_until_idle(picker);
    }

    static QString text_of(const ModelPicker& picker, const char* label) {
        return child<QLabel>(picker, label).text();
    }

    static QStringList listed_models(const ModelPicker& picker) {
        QStringList models;
        const auto& list = child<QListWidget>(picker, "remoteModels");
        for (int row = 0; row < list.count(); ++row) models.append(list.item(row)->text());
        return models;
    }

    QString settings_file_text() const {
        QSettings settings;
        settings.sync();
        QFile file(settings.fileName());
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    }

    test::TempDirectory m_folder;
};

// A port nothing listens on: a scripted server's, once it is gone.
int closed_port() {
    const ScriptedHttpServer gone(test::HttpScript{});
    return gone.port();
}

TEST_F(ConnectionsTest, AConnectionsModelsAreListedAndOneIsChosenLikeAFile) {
    const test::LocalApiServer server(std::string("sk-connections-test"));
    const QString url = QString::fromStdString(server.url());
    const auto picker = open_picker();
    add_connection(*picker, "Workstation", url, "sk-connections-test");

    // The key reached the server (it checks it) from the store, where the dialog says it is.
    EXPECT_EQ(listed_models(*picker), QStringList{"stories260K"})
        << text_of(*picker, "listingMessage").toStdString();
    const core::KeyResult stored = keys().read("Workstation");
    EXPECT_EQ(stored.key, "sk-connections-test");
    EXPECT_EQ(stored.location,
              keyring_expected() ? core::KeyLocation::Keyring : core::KeyLocation::File);
    const QString where = keyring_expected() ? QStringLiteral("system keyring") : key_file();
    EXPECT_TRUE(text_of(*picker, "connectionMessage").contains(where))
        << text_of(*picker, "connectionMessage").toStdString();

    // Saved, without the key.
    EXPECT_EQ(core::load_global_settings().connections,
              (std::vector<core::RemoteConnection>{{.name = "Workstation", .base_url = url}}));
    EXPECT_TRUE(settings_file_text().contains(url));
    EXPECT_FALSE(settings_file_text().contains("sk-connections-test"));

    auto& models = child<QListWidget>(*picker, "remoteModels");
    EXPECT_FALSE(picker->selected_remote());
    EXPECT_FALSE(child<QPushButton>(*picker, "loadModel").isEnabled());
    models.setCurrentRow(0);
    const core::RemoteChoice expected{.connection = {.name = "Workstation", .base_url = url},
                                      .model = "stories260K"};
    EXPECT_EQ(picker->selected_remote(), expected);
    EXPECT_TRUE(picker->selected_path().isEmpty());
    EXPECT_TRUE(child<QPushButton>(*picker, "loadModel").isEnabled());
    // A double click, as the user makes it: the first click's press, then the second's.
    const QPoint item = models.visualItemRect(models.item(0)).center();
    QTest::mouseClick(models.viewport(), Qt::LeftButton, {}, item);
    QTest::mouseDClick(models.viewport(), Qt::LeftButton, {}, item);
    EXPECT_EQ(picker->result(), QDialog::Accepted);
    EXPECT_EQ(picker->selected_remote(), expected);
}

// A saved connection's models are listed when the user asks (Refresh), not on opening.
TEST_F(ConnectionsTest, RefreshListsTheSelectedConnectionsModels) {
    const test::LocalApiServer server;
    const auto picker =
        open_picker({{.name = "Workstation", .base_url = QString::fromStdString(server.url())}});
    wait_until_idle(*picker);
    EXPECT_TRUE(listed_models(*picker).isEmpty());
    child<QPushButton>(*picker, "refreshModels").click();
    EXPECT_TRUE(child<QProgressBar>(*picker, "listingProgress").isVisible());
    wait_until_idle(*picker);
    EXPECT_EQ(listed_models(*picker), QStringList{"stories260K"})
        << text_of(*picker, "listingMessage").toStdString();
    EXPECT_EQ(text_of(*picker, "listingMessage"), "1 model on Workstation.");
}

// The remote model in use is marked and chosen when the picker opens, before any listing.
TEST_F(ConnectionsTest, TheRemoteModelInUseIsMarked) {
    const core::RemoteChoice current{
        .connection = {.name = "Lab", .base_url = "http://127.0.0.1:1/v1"}, .model = "big-70b"};
    const auto picker = open_picker({current.connection}, current);
    EXPECT_EQ(listed_models(*picker), QStringList{"big-70b (in use)"});
    EXPECT_EQ(picker->selected_remote(), current);
    wait_until_idle(*picker);
}

TEST_F(ConnectionsTest, AnAddressTheClientCannotUseIsRefusedWithItsReason) {
    const auto picker = open_picker();
    for (const QString url : {"ftp://gpu-box/v1", "http://gpu-box:70000/v1", "gpu-box:8000"}) {
        std::string reason;
        try {
            remote::parse_base_url(url.toStdString());
        } catch (const remote::RemoteError& error) {
            reason = error.what();
        }
        ASSERT_FALSE(reason.empty()) << url.toStdString();
        add_connection(*picker, "GPU box", url);
        EXPECT_EQ(text_of(*picker, "connectionMessage").toStdString(), reason);
        EXPECT_TRUE(panel(*picker).connections().empty());
    }
    EXPECT_TRUE(core::load_global_settings().connections.empty());
}

TEST_F(ConnectionsTest, NamesAndCertificateFilesAreChecked) {
    const auto picker = open_picker({{.name = "Lab", .base_url = "http://127.0.0.1:1"}});
    add_connection(*picker, "", "http://127.0.0.1:2");
    EXPECT_EQ(text_of(*picker, "connectionMessage"), "Give the connection a name.");
    add_connection(*picker, "Lab", "http://127.0.0.1:2");
    EXPECT_EQ(text_of(*picker, "connectionMessage"),
              "Another connection is already called \"Lab\".");
    EXPECT_EQ(panel(*picker).connections().size(), 1u);
}

TEST_F(ConnectionsTest, TheServersRefusalsAreShownInTheDialog) {
    ScriptedHttpServer unauthorized(
        {{{test::json_response(401, R"({"error":{"message":"Invalid API key: sk-wrong"}})")}}});
    const auto picker = open_picker();
    add_connection(*picker, "Guarded", QString::fromStdString(unauthorized.url()), "sk-wrong");
    const QString said = text_of(*picker, "listingMessage");
    EXPECT_TRUE(said.contains("401") && said.contains("Invalid API key: sk-wrong"))
        << said.toStdString();
    EXPECT_TRUE(listed_models(*picker).isEmpty());

    add_connection(*picker, "Nobody", QStringLiteral("http://127.0.0.1:%1").arg(closed_port()));
    EXPECT_TRUE(text_of(*picker, "listingMessage").contains("Could not connect"))
        << text_of(*picker, "listingMessage").toStdString();
    EXPECT_FALSE(picker->selected_remote());
}

TEST_F(ConnectionsTest, EditingMovesTheKeyAndRemovingForgetsIt) {
    const QString unused = QStringLiteral("http://127.0.0.1:%1/v1").arg(closed_port());
    ASSERT_TRUE(keys().store("Old name", "sk-kept").ok);
    const auto picker = open_picker({{.name = "Old name", .base_url = unused}});
    // The stored key is read into the form, off the GUI thread.
    wait_until_idle(*picker);
    EXPECT_EQ(child<QLineEdit>(*picker, "connectionKey").text(), "sk-kept");

    type(*picker, "connectionName", "New name");
    type(*picker, "connectionUrl", "http://127.0.0.1:9/v1");
    child<QPushButton>(*picker, "saveConnection").click();
    wait_until_idle(*picker);
    const std::vector<core::RemoteConnection> renamed{
        {.name = "New name", .base_url = "http://127.0.0.1:9/v1"}};
    EXPECT_EQ(panel(*picker).connections(), renamed);
    EXPECT_EQ(core::load_global_settings().connections, renamed);
    EXPECT_EQ(keys().read("New name").key, "sk-kept");
    EXPECT_TRUE(keys().read("Old name").key.isEmpty());

    type(*picker, "connectionKey", "sk-new");
    child<QPushButton>(*picker, "saveConnection").click();
    wait_until_idle(*picker);
    EXPECT_EQ(keys().read("New name").key, "sk-new");

    child<QPushButton>(*picker, "removeConnection").click();
    wait_until_idle(*picker);
    EXPECT_TRUE(panel(*picker).connections().empty());
    EXPECT_TRUE(core::load_global_settings().connections.empty());
    EXPECT_TRUE(keys().read("New name").key.isEmpty());
    EXPECT_EQ(text_of(*picker, "connectionMessage"), "Removed \"New name\" and its API key.");
}

// A server with a self-signed certificate, as a user's own GPU box has: the TLS failure is named
// until its certificate is trusted for this connection, and then its models are listed.
TEST_F(ConnectionsTest, ASelfSignedServerIsListedOnceItsCertificateIsTrusted) {
    const test::CertificateFiles files = test::write_self_signed_certificate(m_folder.path());
    httplib::SSLServer server(files.certificate.c_str(), files.key.c_str());
    ASSERT_TRUE(server.is_valid());
    server.Get("/v1/models", [](const httplib::Request&, httplib::Response& response) {
        response.set_content(R"({"object":"list","data":[{"id":"box-70b","object":"model"}]})",
                             "application/json");
    });
    const int port = server.bind_to_any_port("127.0.0.1");
    const std::jthread serving([&] { server.listen_after_bind(); });
    const auto stop = qScopeGuard([&] { server.stop(); });
    const auto picker = open_picker();

    add_connection(*picker, "Own box", QStringLiteral("https://127.0.0.1:%1/v1").arg(port));
    EXPECT_TRUE(text_of(*picker, "listingMessage").contains("self-signed"))
        << text_of(*picker, "listingMessage").toStdString();
    EXPECT_TRUE(listed_models(*picker).isEmpty());

    const QString certificate = QString::fromStdString(files.certificate.string());
    type(*picker, "connectionCertificate", certificate);
    child<QPushButton>(*picker, "saveConnection").click();
    wait_until_idle(*picker);
    EXPECT_EQ(listed_models(*picker), QStringList{"box-70b"})
        << text_of(*picker, "listingMessage").toStdString();
    EXPECT_EQ(panel(*picker).connections().front().trusted_certificate, certificate);
}

// A server that sends a reply's head and then nothing: while the client waits for the rest,
// the dialog shows that it is listing and takes the user's typing.
TEST_F(ConnectionsTest, TheDialogStaysResponsiveWhileAServerStalls) {
    auto stalling = std::make_unique<ScriptedHttpServer>(test::HttpScript{
        {{test::response_head(200, {"Content-Type: application/json", "Content-Length: 64"}),
          60s}}});
    const auto picker = open_picker();
    child<QPushButton>(*picker, "addConnection").click();
    type(*picker, "connectionName", "Stalling");
    type(*picker, "connectionUrl", QString::fromStdString(stalling->url()));
    child<QPushButton>(*picker, "saveConnection").click();

    // Back from the click with the request still unanswered: it runs on another thread.
    ASSERT_TRUE(QTest::qWaitFor([&] { return stalling->requests() == 1; }, kPatienceMs));
    EXPECT_TRUE(panel(*picker).busy());
    EXPECT_TRUE(child<QProgressBar>(*picker, "listingProgress").isVisible());
    EXPECT_FALSE(child<QPushButton>(*picker, "refreshModels").isEnabled());
    EXPECT_TRUE(text_of(*picker, "listingMessage").contains("Asking"));
    QTest::keyClicks(&child<QLineEdit>(*picker, "connectionKey"), "typed meanwhile");
    EXPECT_EQ(child<QLineEdit>(*picker, "connectionKey").text(), "typed meanwhile");
    EXPECT_TRUE(panel(*picker).busy());

    stalling.reset();  // the connection closes mid-reply
    wait_until_idle(*picker);
    EXPECT_FALSE(child<QProgressBar>(*picker, "listingProgress").isVisible());
    EXPECT_TRUE(child<QPushButton>(*picker, "refreshModels").isEnabled());
    EXPECT_FALSE(text_of(*picker, "listingMessage").contains("Asking"));
    EXPECT_TRUE(listed_models(*picker).isEmpty());
}

// Closing the dialog while a server stalls ends the listing at once: the app waits for the
// thread pool when it quits, and a silent server would hold that quit for the listing's 20 s.
TEST_F(ConnectionsTest, ClosingTheDialogWhileAServerStallsEndsTheListingAtOnce) {
    const ScriptedHttpServer stalling(test::HttpScript{
        {{test::response_head(200, {"Content-Type: application/json", "Content-Length: 64"}),
          60s}}});
    auto picker = open_picker();
    child<QPushButton>(*picker, "addConnection").click();
    type(*picker, "connectionName", "Stalling");
    type(*picker, "connectionUrl", QString::fromStdString(stalling.url()));
    child<QPushButton>(*picker, "saveConnection").click();
    ASSERT_TRUE(QTest::qWaitFor([&] { return stalling.requests() == 1; }, kPatienceMs));
    ASSERT_TRUE(panel(*picker).busy());

    QElapsedTimer clock;
    clock.start();
    picker.reset();
    EXPECT_TRUE(QThreadPool::globalInstance()->waitForDone(10000));
    EXPECT_LT(clock.elapsed(), 2000);
}

}  // namespace
}  // namespace hearth::ui
