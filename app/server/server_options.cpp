#include "app/server/server_options.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>
#include <stdexcept>

#include "engine/runtime/backend_preference.h"
#include "engine/serving/batch_scheduler.h"

namespace hearth::server {
namespace {

int parse_bounded(const std::string& option, const std::string& text, int min, int max) {
    int value = 0;
    const char* end = text.data() + text.size();
    const auto [last, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc{} || last != end || value < min || value > max) {
        throw std::invalid_argument("option " + option + " expects a whole number from " +
                                    std::to_string(min) + " to " + std::to_string(max) + ", got '" +
                                    text + "'");
    }
    return value;
}

void check_exposure(const ServerOptions& options) {
    if (options.api_key && options.no_auth) {
        throw std::invalid_argument("--api-key and --no-auth contradict each other: give one");
    }
    if (options.api_key && options.api_key->empty()) {
        throw std::invalid_argument("--api-key needs a non-empty key");
    }
    if (!is_loopback_host(options.host) && !options.api_key && !options.no_auth) {
        throw std::invalid_argument(
            "--host " + options.host +
            " can be reached from other machines, so it needs --api-key KEY (clients send it "
            "as 'Authorization: Bearer KEY'); pass --no-auth instead only if anyone who can "
            "reach this address may use the model");
    }
}

}  // namespace

bool is_loopback_host(std::string_view host) {
    const std::string text(host);
    if (text == "localhost") return true;
    in_addr v4{};
    if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
        return (ntohl(v4.s_addr) >> 24) == 127;
    }
    in6_addr v6{};
    return inet_pton(AF_INET6, text.c_str(), &v6) == 1 &&
           std::memcmp(&v6, &in6addr_loopback, sizeof v6) == 0;
}

ServerOptions parse_server_options(const std::vector<std::string>& arguments) {
    ServerOptions options;
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& option = arguments[i];
        const auto value = [&]() -> const std::string& {
            if (i + 1 >= arguments.size()) {
                throw std::invalid_argument("option " + option + " needs a value");
            }
            return arguments[++i];
        };
        if (option == "-h" || option == "--help") {
            options.help = true;
        } else if (option == "-m" || option == "--model") {
            options.model_path = value();
        } else if (option == "--host") {
            options.host = value();
        } else if (option == "--port") {
            options.port = parse_bounded(option, value(), 0, 65535);
        } else if (option == "--api-key") {
            options.api_key = value();
        } else if (option == "--no-auth") {
            options.no_auth = true;
        } else if (option == "--rows") {
            options.rows = parse_bounded(option, value(), 1, SchedulerOptions::kMaxRows);
        } else if (option == "--ctx") {
            options.context_length = parse_bounded(option, value(), 0, 1 << 24);
        } else if (option == "--backend") {
            options.backend = value();
            parse_backend_preference(options.backend);  // throws naming the choices
        } else if (option == "-t" || option == "--threads") {
            options.threads = parse_bounded(option, value(), 0, 1024);
        } else {
            throw std::invalid_argument("unknown option '" + option + "'");
        }
    }
    if (!options.help) check_exposure(options);
    return options;
}

std::string server_usage() {
    return "usage: hearth-server [-m MODEL.gguf] [--host 127.0.0.1] [--port 8080]\n"
           "                     [--api-key KEY | --no-auth] [--rows N] [--ctx N]\n"
           "                     [--backend auto|cpu|vulkan] [-t THREADS]\n"
           "\n"
           "Serves the model (the bundled one without -m) through an OpenAI-compatible API:\n"
           "POST /v1/chat/completions, POST /v1/completions, GET /v1/models, GET /health and\n"
           "GET /metrics (Prometheus). --rows requests are decoded together (1 to 32, default\n"
           "8); more wait in a queue. --ctx is each row's context (default: the model's own,\n"
           "capped at 4096). It listens on 127.0.0.1 unless --host says otherwise; any other\n"
           "address needs --api-key (clients send 'Authorization: Bearer KEY') or an explicit\n"
           "--no-auth. --port 0 picks a free port. Ctrl+C (SIGINT) or SIGTERM ends running\n"
           "answers and stops.\n";
}

}  // namespace hearth::server
