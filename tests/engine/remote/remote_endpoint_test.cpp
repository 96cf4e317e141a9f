// Base URLs as users paste them.
#include "engine/remote/remote_endpoint.h"

#include <gtest/gtest.h>

#include "engine/remote/remote_error.h"

namespace hearth::remote {
namespace {

TEST(RemoteEndpoint, UsualAddressesAndTheirDefaults) {
    const ParsedUrl vllm = parse_base_url("http://gpu-box:8000/v1");
    EXPECT_FALSE(vllm.tls);
    EXPECT_EQ(vllm.host, "gpu-box");
    EXPECT_EQ(vllm.port, 8000);
    EXPECT_EQ(vllm.api_path, "/v1");
    EXPECT_EQ(vllm.origin(), "http://gpu-box:8000");

    const ParsedUrl root = parse_base_url("http://localhost:11434/");  // Ollama's root
    EXPECT_EQ(root.api_path, "/v1");

    const ParsedUrl proxied = parse_base_url("https://llm.example.org/team/openai/v1/");
    EXPECT_TRUE(proxied.tls);
    EXPECT_EQ(proxied.port, 443);
    EXPECT_EQ(proxied.api_path, "/team/openai/v1");

    const ParsedUrl six = parse_base_url("http://[::1]:8080");
    EXPECT_EQ(six.host, "::1");
    EXPECT_EQ(six.origin(), "http://[::1]:8080");
}

TEST(RemoteEndpoint, UnusableAddressesAreRefusedNamingTheProblem) {
    const struct {
        const char* url;
        const char* named;
    } cases[] = {
        {"gpu-box:8000", "http:// or https://"},
        {"ftp://gpu-box", "http:// or https://"},
        {"http://:8000/v1", "no host"},
        {"http://gpu-box:0", "invalid port"},
        {"http://gpu-box:70000", "invalid port"},
        {"http://gpu-box:80a", "invalid port"},
        {"http://gpu-box/v1?key=1", "query"},
        {"http://user:secret@gpu-box", "user name"},
        {"http://[::1:8080", "IPv6"},
    };
    for (const auto& each : cases) {
        try {
            parse_base_url(each.url);
            ADD_FAILURE() << each.url << " was accepted";
        } catch (const RemoteError& error) {
            EXPECT_EQ(error.failure(), RemoteFailure::BadAddress);
            EXPECT_NE(std::string(error.what()).find(each.named), std::string::npos)
                << error.what();
        }
    }
}

}  // namespace
}  // namespace hearth::remote
