#include "app/core/downloads/hub_client.h"

#include <gtest/gtest.h>

#include "app/core/downloads/hub_json.h"
#include "tests/support/download_waits.h"
#include "tests/support/hub_test_server.h"
#include "tests/support/shared_data.h"

namespace hearth::downloads {
namespace {

constexpr const char* kToken = "hf_testtoken";

std::vector<test::HubTestRepository> repositories() {
    return {{"hearth-test/stories",
             {test::hub_file("stories260K.gguf", test::model_path("stories260K.gguf")),
              test::hub_file("quantised/synth-llama-256-Q4_K_M.gguf",
                             test::model_path("synth-llama-256-Q4_K_M.gguf")),
              test::hub_file("synth-llama-256-Q8_0.gguf",
                             test::model_path("synth-llama-256-Q8_0.gguf"))},
             false,
             1200},
            {"hearth-test/gated-llama",
             {test::hub_file("synth-llama-256-Q4_0.gguf",
                             test::model_path("synth-llama-256-Q4_0.gguf"))},
             true}};  // the search answer gives no download count for it
}

class HubClientTest : public ::testing::Test {
protected:
    HubClientTest() : m_server(repositories(), kToken), m_hub(settings()) {}

    HubSettings settings(const QString& token = {}) const {
        return {QUrl(QString::fromStdString(m_server.url())), token};
    }
    HubResult<std::vector<HubFile>> files(HubClient& hub, const QString& repository) {
        const auto result = test::wait_for<std::vector<HubFile>>(
            [&](auto done) { hub.list_files(repository, std::move(done)); });
        EXPECT_TRUE(result.has_value());
        return result.value_or(HubResult<std::vector<HubFile>>{});
    }

    test::HubTestServer m_server;
    HubClient m_hub;
};

TEST_F(HubClientTest, SearchFindsRepositoriesByName) {
    const auto found = test::wait_for<std::vector<HubModel>>(
        [&](auto done) { m_hub.search("STORIES", std::move(done)); });
    ASSERT_TRUE(found && found->ok());
    ASSERT_EQ(found->value.size(), 1u);
    EXPECT_EQ(found->value[0].id, "hearth-test/stories");
    EXPECT_EQ(found->value[0].downloads, std::optional<qint64>(1200));
    EXPECT_TRUE(found->value[0].tags.contains("gguf"));
    EXPECT_NE(m_server.requests().front().path.find("search=STORIES"), std::string::npos);
    // No count in the answer is no count, not zero downloads.
    const auto uncounted = test::wait_for<std::vector<HubModel>>(
        [&](auto done) { m_hub.search("gated-llama", std::move(done)); });
    ASSERT_TRUE(uncounted && uncounted->ok());
    ASSERT_EQ(uncounted->value.size(), 1u);
    EXPECT_EQ(uncounted->value[0].downloads, std::nullopt);
}

// Every page of the tree (the Link header's next), folders skipped, sizes and LFS sha256 kept.
TEST_F(HubClientTest, TheTreeListsEveryFileWithSizeAndSha256AcrossPages) {
    m_server.set_page_size(2);
    const auto listed = files(m_hub, "hearth-test/stories");
    ASSERT_TRUE(listed.ok()) << listed.error->text.toStdString();
    ASSERT_EQ(listed.value.size(), 3u);
    const auto served = repositories().front().files;
    for (size_t i = 0; i < served.size(); ++i) {
        EXPECT_EQ(listed.value[i].path.toStdString(), served[i].path);
        EXPECT_EQ(listed.value[i].size, served[i].bytes.size());
        EXPECT_EQ(listed.value[i].sha256.toStdString(), served[i].sha256);
        EXPECT_EQ(listed.value[i].git_oid.toStdString(), served[i].git_oid);
    }
    EXPECT_EQ(m_server.requests().size(), 2u);  // four entries (a folder), two per page
}

// A server whose pages lead back to one already read is refused, naming why, instead of being
// read forever. (kMaxHubTreePages, for links that change forever, takes a thousand requests:
// too slow for this suite.)
TEST_F(HubClientTest, ATreeWhosePagesNeverEndIsRefused) {
    m_server.set_page_size(2);
    m_server.set_tree_paging(test::HubTestServer::TreePaging::Loop);
    const auto looped = files(m_hub, "hearth-test/stories");
    ASSERT_FALSE(looped.ok());
    EXPECT_EQ(looped.error->kind, HubErrorKind::Protocol);
    EXPECT_TRUE(looped.error->text.contains("leads back to a page already read"))
        << looped.error->text.toStdString();
    // The first page's address, then its Link's (with the cursor), which links to itself.
    EXPECT_EQ(m_server.requests().size(), 2u);
}

// A gated repository: 401 without a token, saying a token is needed; listed with one.
TEST_F(HubClientTest, AGatedRepositoryNeedsTheToken) {
    const auto refused = files(m_hub, "hearth-test/gated-llama");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error->kind, HubErrorKind::NeedsToken);
    EXPECT_EQ(refused.error->status, 401);
    EXPECT_TRUE(refused.error->text.contains("needs an access token"))
        << refused.error->text.toStdString();

    HubClient with_token(settings(kToken));
    const auto listed = files(with_token, "hearth-test/gated-llama");
    ASSERT_TRUE(listed.ok()) << listed.error->text.toStdString();
    EXPECT_EQ(listed.value.size(), 1u);
    EXPECT_TRUE(m_server.requests().back().authorised);

    HubClient wrong_token(settings("hf_wrong"));
    const auto wrong = files(wrong_token, "hearth-test/gated-llama");
    ASSERT_FALSE(wrong.ok());
    EXPECT_TRUE(wrong.error->text.contains("token was refused")) << wrong.error->text.toStdString();
}

// The Hub answers an unknown repository with 401 RepoNotFound: it is reported as not found.
TEST_F(HubClientTest, AnUnknownRepositoryIsNotFound) {
    const auto missing = files(m_hub, "hearth-test/nothing-here");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error->kind, HubErrorKind::NotFound);
    EXPECT_TRUE(missing.error->text.contains("hearth-test/nothing-here"))
        << missing.error->text.toStdString();
}

TEST_F(HubClientTest, RateLimitingSaysWhenToTryAgain) {
    m_server.limit_next(1, 17);
    const auto limited = files(m_hub, "hearth-test/stories");
    ASSERT_FALSE(limited.ok());
    EXPECT_EQ(limited.error->kind, HubErrorKind::RateLimited);
    EXPECT_EQ(limited.error->status, 429);
    EXPECT_EQ(limited.error->retry_after_seconds, 17);
    EXPECT_TRUE(limited.error->text.contains("try again in 17 seconds"))
        << limited.error->text.toStdString();
    EXPECT_TRUE(files(m_hub, "hearth-test/stories").ok());  // the next request goes through
}

TEST_F(HubClientTest, AServerErrorSaysToTryLater) {
    m_server.fail_next(1, 503);
    const auto failed = files(m_hub, "hearth-test/stories");
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.error->kind, HubErrorKind::Server);
    EXPECT_EQ(failed.error->status, 503);
    EXPECT_TRUE(failed.error->text.contains("server error")) << failed.error->text.toStdString();
}

// https to a server that speaks plain HTTP: the secure connection fails, and says so.
TEST_F(HubClientTest, AFailedSecureConnectionIsATlsError) {
    QUrl secure(QString::fromStdString(m_server.url()));
    secure.setScheme("https");
    HubClient client(HubSettings{secure, {}});
    const auto result = files(client, "hearth-test/stories");
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error->kind, HubErrorKind::Tls) << result.error->text.toStdString();
    EXPECT_TRUE(result.error->text.contains("secure connection"))
        << result.error->text.toStdString();
}

// Nothing listening: the error says the Hub could not be reached.
TEST_F(HubClientTest, NoServerIsReportedAsOffline) {
    QUrl closed;
    {
        const test::HubTestServer gone({});
        closed = QUrl(QString::fromStdString(gone.url()));
    }
    HubClient offline(HubSettings{closed, {}});
    const auto result = files(offline, "hearth-test/stories");
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error->kind, HubErrorKind::Offline);
    EXPECT_TRUE(result.error->text.contains("Could not reach 127.0.0.1"))
        << result.error->text.toStdString();
}

// A byte range of a file, through the resolve redirect.
TEST_F(HubClientTest, ARangeOfAFileArrivesThroughTheRedirect) {
    const auto bytes = test::wait_for<QByteArray>([&](auto done) {
        m_hub.read_range("hearth-test/stories", "stories260K.gguf", 4, 11, std::move(done));
    });
    ASSERT_TRUE(bytes && bytes->ok());
    EXPECT_EQ(bytes->value, repositories().front().files.front().bytes.mid(4, 8));
    EXPECT_EQ(m_server.requests().back().range, "bytes=4-11");
    EXPECT_EQ(m_server.file_bytes_sent(), 8);
}

}  // namespace
}  // namespace hearth::downloads
