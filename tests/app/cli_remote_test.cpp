// hearth-cli --remote as scripts run it: a real process chatting with hearth-server on
// 127.0.0.1, the answer compared with the engine's own, and failures named on stderr.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/support/cli_process.h"
#include "tests/support/local_api_server.h"

namespace hearth {
namespace {

using test::run_cli;

class CliRemote : public testing::Test {
protected:
    void start(std::optional<std::string> api_key = std::nullopt) {
        m_server = std::make_unique<test::LocalApiServer>(std::move(api_key));
    }
    QString url() const { return QString::fromStdString(m_server->url()); }

    std::unique_ptr<test::LocalApiServer> m_server;
};

TEST_F(CliRemote, PrintsTheEnginesGreedyAnswerAndTheFigures) {
    start();
    const std::string expected = test::cpu_engine()->chat(test::story_request(20), {}).text;
    for (const char* stream : {"", "--no-stream"}) {
        QStringList arguments{
            "--remote",         url(), "-m", "stories260K", "--system", "You tell stories.", "-p",
            "Once upon a time", "-n",  "20", "--temp",      "0"};
        if (*stream) arguments << stream;
        const auto result = run_cli(arguments);
        ASSERT_EQ(result.exit_code, 0) << result.err;
        EXPECT_EQ(result.out, expected + "\n");
        EXPECT_NE(result.err.find("generated: 20 tokens"), std::string::npos) << result.err;
        EXPECT_NE(result.err.find("finish: length"), std::string::npos) << result.err;
    }
}

TEST_F(CliRemote, ListsModelsAndReadsTheKeyFromTheEnvironment) {
    start("sesame");
    setenv("HEARTH_TEST_REMOTE_KEY", "sesame", 1);
    const auto listed =
        run_cli({"--remote", url(), "--api-key-env", "HEARTH_TEST_REMOTE_KEY", "--list-models"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_EQ(listed.out, "stories260K\n");

    const auto keyless = run_cli({"--remote", url(), "-m", "stories260K", "-p", "Hi"});
    EXPECT_EQ(keyless.exit_code, 1);
    EXPECT_NE(keyless.err.find("401: the API key is missing or wrong"), std::string::npos)
        << keyless.err;

    const auto unset =
        run_cli({"--remote", url(), "--api-key-env", "HEARTH_NO_SUCH_VARIABLE", "--list-models"});
    EXPECT_EQ(unset.exit_code, 2);
    EXPECT_NE(unset.err.find("HEARTH_NO_SUCH_VARIABLE, which is not set"), std::string::npos)
        << unset.err;
}

TEST_F(CliRemote, RefusedAndMisusedCommandLinesSayWhy) {
    start();
    const auto refused = run_cli({"--remote", "http://127.0.0.1:1/v1", "-m", "x", "-p", "Hi"});
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.err.find("Could not connect to http://127.0.0.1:1"), std::string::npos)
        << refused.err;
    const auto no_model = run_cli({"--remote", url(), "-p", "Hi"});
    EXPECT_EQ(no_model.exit_code, 2);
    EXPECT_NE(no_model.err.find("--remote needs -m MODEL"), std::string::npos) << no_model.err;
    const auto local_only = run_cli({"--remote", url(), "-m", "x", "-p", "Hi", "--ctx", "512"});
    EXPECT_EQ(local_only.exit_code, 2);
    EXPECT_NE(local_only.err.find("are for local models"), std::string::npos) << local_only.err;
    const auto unknown = run_cli({"--remote", url(), "-m", "llama-70b", "-p", "Hi"});
    EXPECT_EQ(unknown.exit_code, 1);
    EXPECT_NE(unknown.err.find("no model 'llama-70b'"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace hearth
