// hearth-server's command line, parsed into a plain struct, with the one security rule checked
// here so a misconfigured server never starts: listening beyond this machine needs an API key
// (--api-key) unless --no-auth says, explicitly, that none is wanted.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::server {

struct ServerOptions {
    std::string model_path;              // -m; empty: the bundled model
    std::string host = "127.0.0.1";      // --host
    int port = 8080;                     // --port; 0: any free port (the log says which)
    std::optional<std::string> api_key;  // --api-key: clients must send Authorization: Bearer
    bool no_auth = false;                // --no-auth: no key even on a non-loopback host
    int rows = 8;                        // --rows: user rows decoded together
    int context_length = 0;              // --ctx: per row; 0: the model's own, capped at 4096
    std::string backend = "auto";        // --backend auto|cpu|vulkan (see hearth-cli)
    int threads = 0;                     // -t: CPU threads; 0: one per hardware thread
    bool help = false;
};

// Throws std::invalid_argument naming the bad option, or why the host needs a key.
ServerOptions parse_server_options(const std::vector<std::string>& arguments);
std::string server_usage();

// 127.0.0.0/8, ::1 and "localhost": addresses only this machine can reach.
bool is_loopback_host(std::string_view host);

}  // namespace hearth::server
