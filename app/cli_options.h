// hearth-cli's command line, parsed into a plain struct.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/compute/kv_cache_type.h"
#include "engine/generation/sampler.h"

namespace hearth {

enum class CliMode {
    Generate,
    DumpLogits,
    Tokenize,
    Detokenize,
    RenderTemplate,
    Chat,
    ListDevices,
    Download
};

struct CliOptions {
    CliMode mode = CliMode::Generate;
    std::string model_path;  // empty: the bundled model
    std::string prompt;
    std::vector<int32_t> prompt_ids;          // --prompt-ids: bypasses the tokenizer
    std::optional<int> max_tokens;            // -n
    int context_length = 0;                   // --ctx; 0: the model's own, capped at 4096
    int threads = 0;                          // -t; 0: one per hardware thread
    std::string backend = "auto";             // --backend auto|cpu|vulkan|reference
    std::optional<uint32_t> device;           // --device N: the Vulkan device (see --list-devices)
    KvCacheType kv_cache = KvCacheType::F16;  // --kv-type f16|q8_0
    int dump_logits = 0;                      // --dump-logits K: JSON with top-K logits
    SamplerSettings sampler;
    std::vector<std::string> stop_strings;  // --stop, repeatable
    bool speculative = false;
    std::string draft_path;        // --draft: a smaller model of the same vocabulary drafts
    bool json = false;             // --json or --json-schema
    std::string json_schema_file;  // empty: any JSON object
    int chunk_tokens = 8;          // --chunk
    // --tokenize
    bool add_special = false;
    bool parse_special = false;
    // --render-template and --chat
    std::string template_file;
    std::string messages_file;
    std::string vars_file;
    std::string tools_file;  // --tools: OpenAI function definitions (JSON array)
    std::optional<std::string> bos_token;
    std::optional<std::string> eos_token;
    std::string now;  // ISO time strftime_now() sees, e.g. 2026-11-22T09:30:00
    bool add_generation_prompt = false;
    std::string system_prompt;
    std::optional<bool> enable_thinking;          // --think on|off; unset: the template's default
    std::optional<std::string> reasoning_effort;  // --reasoning-effort low|medium|high
    bool seed_given = false;
    // --remote: chat through an OpenAI-compatible server instead of a local model; -m then
    // names the server's model.
    std::string remote_url;
    std::string api_key_env;        // --api-key-env VAR: the key is read from $VAR
    std::string trust_certificate;  // --trust-cert FILE: a self-signed server's certificate
    bool list_models = false;       // --list-models: the remote server's models
    bool no_stream = false;         // --no-stream: ask the server for one whole answer
    // --download REPO[:FILE] [--dir DIR]: a GGUF model from Hugging Face into DIR (default: the
    // models folder the app lists)
    std::string download;
    std::string download_dir;
    bool help = false;
    bool version = false;  // --version: the version and the commit it was built from
};

// Throws std::invalid_argument with a message naming the bad option.
CliOptions parse_cli_options(const std::vector<std::string>& arguments);
std::string cli_usage();

}  // namespace hearth
