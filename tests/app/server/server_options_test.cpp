#include "app/server/server_options.h"

#include <gtest/gtest.h>

namespace hearth::server {
namespace {

std::string refusal(const std::vector<std::string>& arguments) {
    try {
        parse_server_options(arguments);
    } catch (const std::invalid_argument& error) {
        return error.what();
    }
    ADD_FAILURE() << "accepted";
    return {};
}

TEST(ServerOptions, DefaultsListenOnLoopbackWithoutAKey) {
    const auto options = parse_server_options({});
    EXPECT_EQ(options.host, "127.0.0.1");
    EXPECT_EQ(options.port, 8080);
    EXPECT_FALSE(options.api_key.has_value());
    EXPECT_FALSE(options.no_auth);
    EXPECT_EQ(options.rows, 8);
    EXPECT_EQ(options.context_length, 0);
    EXPECT_EQ(options.backend, "auto");
    EXPECT_TRUE(options.model_path.empty());
}

TEST(ServerOptions, ParsesEveryOption) {
    const auto options =
        parse_server_options({"-m", "x.gguf", "--host", "0.0.0.0", "--port", "0", "--api-key", "k",
                              "--rows", "16", "--ctx", "1024", "--backend", "cpu", "-t", "2"});
    EXPECT_EQ(options.model_path, "x.gguf");
    EXPECT_EQ(options.host, "0.0.0.0");
    EXPECT_EQ(options.port, 0);
    EXPECT_EQ(options.api_key, "k");
    EXPECT_EQ(options.rows, 16);
    EXPECT_EQ(options.context_length, 1024);
    EXPECT_EQ(options.backend, "cpu");
    EXPECT_EQ(options.threads, 2);
    EXPECT_TRUE(parse_server_options({"--help"}).help);
}

TEST(ServerOptions, AnotherHostNeedsAKeyOrAnExplicitNoAuth) {
    const std::string why = refusal({"--host", "0.0.0.0"});
    EXPECT_NE(why.find("--api-key"), std::string::npos) << why;
    EXPECT_NE(why.find("--no-auth"), std::string::npos) << why;
    EXPECT_FALSE(refusal({"--host", "192.168.1.20"}).empty());
    EXPECT_FALSE(refusal({"--host", "::"}).empty());
    EXPECT_TRUE(parse_server_options({"--host", "0.0.0.0", "--no-auth"}).no_auth);
    EXPECT_NO_THROW(parse_server_options({"--host", "localhost"}));
    EXPECT_NO_THROW(parse_server_options({"--host", "::1"}));
    EXPECT_NO_THROW(parse_server_options({"--host", "127.0.0.2"}));
    EXPECT_FALSE(refusal({"--api-key", "k", "--no-auth"}).empty());
    EXPECT_FALSE(refusal({"--api-key", ""}).empty());
}

TEST(ServerOptions, BadValuesNameTheOption) {
    EXPECT_NE(refusal({"--rows", "33"}).find("--rows"), std::string::npos);
    EXPECT_NE(refusal({"--rows", "0"}).find("--rows"), std::string::npos);
    EXPECT_NE(refusal({"--port", "70000"}).find("--port"), std::string::npos);
    EXPECT_NE(refusal({"--port", "80x"}).find("--port"), std::string::npos);
    EXPECT_NE(refusal({"--ctx", "-1"}).find("--ctx"), std::string::npos);
    EXPECT_NE(refusal({"--backend", "gpu"}).find("gpu"), std::string::npos);
    EXPECT_NE(refusal({"--port"}).find("--port"), std::string::npos);
    EXPECT_NE(refusal({"--verbose"}).find("--verbose"), std::string::npos);
}

TEST(ServerOptions, LoopbackHosts) {
    EXPECT_TRUE(is_loopback_host("127.0.0.1"));
    EXPECT_TRUE(is_loopback_host("127.255.0.9"));
    EXPECT_TRUE(is_loopback_host("::1"));
    EXPECT_TRUE(is_loopback_host("localhost"));
    EXPECT_FALSE(is_loopback_host("0.0.0.0"));
    EXPECT_FALSE(is_loopback_host("::"));
    EXPECT_FALSE(is_loopback_host("10.0.0.1"));
    EXPECT_FALSE(is_loopback_host("example.com"));
    EXPECT_FALSE(is_loopback_host("128.0.0.1"));
}

}  // namespace
}  // namespace hearth::server
