#include "app/cli_options.h"

#include <charconv>
#include <stdexcept>

#include "engine/runtime/backend_preference.h"

namespace hearth {
namespace {

template <typename T>
T parse_number(const std::string& option, const std::string& text) {
    T value{};
    const auto* end = text.data() + text.size();
    const auto [last, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc{} || last != end) {
        throw std::invalid_argument("option " + option + " expects a number, got '" + text + "'");
    }
    return value;
}

bool parse_switch(const std::string& option, const std::string& text) {
    if (text == "on") return true;
    if (text == "off") return false;
    throw std::invalid_argument("option " + option + " expects on or off, got '" + text + "'");
}

// The levels gpt-oss's template describes; anything else would reach the model verbatim.
std::string parse_reasoning_effort(const std::string& text) {
    if (text == "low" || text == "medium" || text == "high") return text;
    throw std::invalid_argument("option --reasoning-effort expects low, medium or high, got '" +
                                text + "'");
}

std::vector<int32_t> parse_ids(const std::string& text) {
    std::vector<int32_t> ids;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        ids.push_back(parse_number<int32_t>("--prompt-ids", text.substr(start, comma - start)));
        start = comma + 1;
    }
    return ids;
}

}  // namespace

std::string cli_usage() {
    return "usage: hearth-cli [-m MODEL.gguf] -p PROMPT [-n N] [--temp T] [--top-k K] [--top-p P]\n"
           "                  [--min-p M] [--repeat-penalty R] [--seed S] [--ctx N] [-t THREADS]\n"
           "                  [--backend auto|cpu|vulkan|reference] [--device N] [--stop TEXT]... "
           "[--speculative]\n"
           "                  [--draft DRAFT.gguf]\n"
           "                  [--json | --json-schema SCHEMA.json] [--chunk N] [--kv-type "
           "f16|q8_0]\n"
           "       hearth-cli [-m MODEL.gguf] --chat -p MESSAGE [--system TEXT] [--think on|off]\n"
           "                  [--reasoning-effort low|medium|high] [sampling options]\n"
           "       hearth-cli [-m MODEL.gguf] --prompt-ids 1,72,9 --dump-logits K [-n N]\n"
           "       hearth-cli [-m MODEL.gguf] --tokenize [--add-special] [--parse-special] < text\n"
           "       hearth-cli [-m MODEL.gguf] --detokenize < ids\n"
           "       hearth-cli --render-template [-m MODEL.gguf | --template-file FILE]\n"
           "                  --messages MESSAGES.json [--add-generation-prompt] [--bos-token S]\n"
           "                  [--eos-token S] [--vars VARS.json] [--now 2026-11-22T09:30:00]\n"
           "                  [--tools TOOLS.json] [--think on|off]\n"
           "                  [--reasoning-effort low|medium|high]\n"
           "       hearth-cli --remote URL [--api-key-env VAR] [--trust-cert FILE] -m MODEL -p "
           "MESSAGE\n"
           "                  [--system TEXT] [--no-stream] [--think on|off] [sampling options]\n"
           "       hearth-cli --remote URL [--api-key-env VAR] --list-models\n"
           "       hearth-cli --list-devices\n"
           "       hearth-cli --version\n"
           "       hearth-cli --download REPO[:FILE] [--dir DIR] [--ctx N]\n"
           "\n"
           "Without -m the bundled model is used. Text streams to stdout; a line of\n"
           "performance figures goes to stderr at the end. --chat sends the message through the\n"
           "model's chat template; --think on|off sets its enable_thinking (Qwen3, SmolLM3: off\n"
           "answers without reasoning first); --reasoning-effort sets gpt-oss's reasoning_effort.\n"
           "MESSAGES.json and TOOLS.json are in OpenAI's chat format. --dump-logits prints JSON "
           "with the top-K logits\n"
           "at every prompt position and for N greedy steps. --tokenize prints the ids of stdin's\n"
           "text as JSON; vocabulary-only GGUF files work for --tokenize, --detokenize and\n"
           "--render-template.\n"
           "--stop ends the answer before TEXT (repeatable). --speculative verifies prompt-lookup\n"
           "drafts in batches (greedy, --temp 0); --draft DRAFT.gguf has a smaller model of the "
           "same "
           "vocabulary\ndraft instead (the answer is the same, token for token). --json constrains "
           "the answer to a JSON object,\n"
           "--json-schema to a document following the schema. --chunk N hands text over every\n"
           "N tokens (or 30 ms). --backend auto (the default) runs on a GPU that passes Hearth's\n"
           "start-up check against the CPU, else on the CPU; --backend vulkan runs on the best "
           "GPU,\n"
           "or on Vulkan device N of --list-devices (a CPU implementation such as lavapipe only\n"
           "when named). A GPU lost mid-answer hands the answer on to the CPU. --kv-type q8_0\n"
           "keeps the KV cache in 8-bit blocks, 0.53 of F16's memory (models whose heads are not\n"
           "whole 32-value blocks keep F16).\n"
           "--remote chats with MODEL on an OpenAI-compatible server (vLLM, llama.cpp's server,\n"
           "Ollama, hearth-server), e.g. http://gpu-box:8000/v1; the API key is read from the\n"
           "environment variable VAR, never from the command line. Reasoning goes to stderr.\n"
           "--download fetches a GGUF model from Hugging Face (owner/name, owner/name:FILE or its\n"
           "address) into DIR, by default the app's models folder: the memory it needs at --ctx\n"
           "first, then the file, resumable, verified against the Hub's sha256. HF_TOKEN is the\n"
           "access token of gated models; HF_ENDPOINT another hub's address.\n";
}

namespace {

// --remote takes a chat message and a model name; local-only options are refused, not ignored.
void check_remote_options(const CliOptions& options) {
    const bool remote = !options.remote_url.empty();
    if (!remote) {
        if (!options.api_key_env.empty() || !options.trust_certificate.empty() ||
            options.list_models || options.no_stream) {
            throw std::invalid_argument(
                "--api-key-env, --trust-cert, --list-models and --no-stream need --remote URL");
        }
        return;
    }
    if (options.mode != CliMode::Generate && options.mode != CliMode::Chat) {
        throw std::invalid_argument("--remote chats; it cannot be combined with that mode");
    }
    if (!options.prompt_ids.empty() || options.speculative || options.device ||
        options.threads != 0 || options.backend != "auto" || options.context_length != 0) {
        throw std::invalid_argument(
            "--prompt-ids, --speculative, --backend, --device, -t and --ctx are for local "
            "models; the remote server chooses its own");
    }
    if (!options.list_models && options.model_path.empty()) {
        throw std::invalid_argument(
            "--remote needs -m MODEL, a model the server lists "
            "(see --list-models)");
    }
}

}  // namespace

CliOptions parse_cli_options(const std::vector<std::string>& arguments) {
    CliOptions options;
    options.sampler.temperature = 0.8f;
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& option = arguments[i];
        const auto value = [&]() -> const std::string& {
            if (i + 1 >= arguments.size())
                throw std::invalid_argument("option " + option + " needs a value");
            return arguments[++i];
        };
        if (option == "-h" || option == "--help") {
            options.help = true;
        } else if (option == "--version") {
            options.version = true;
        } else if (option == "--tokenize") {
            options.mode = CliMode::Tokenize;
        } else if (option == "--detokenize") {
            options.mode = CliMode::Detokenize;
        } else if (option == "--render-template") {
            options.mode = CliMode::RenderTemplate;
        } else if (option == "--chat") {
            options.mode = CliMode::Chat;
        } else if (option == "--add-special") {
            options.add_special = true;
        } else if (option == "--parse-special") {
            options.parse_special = true;
        } else if (option == "--add-generation-prompt") {
            options.add_generation_prompt = true;
        } else if (option == "--template-file") {
            options.template_file = value();
        } else if (option == "--messages") {
            options.messages_file = value();
        } else if (option == "--vars") {
            options.vars_file = value();
        } else if (option == "--tools") {
            options.tools_file = value();
        } else if (option == "--reasoning-effort") {
            options.reasoning_effort = parse_reasoning_effort(value());
        } else if (option == "--bos-token") {
            options.bos_token = value();
        } else if (option == "--eos-token") {
            options.eos_token = value();
        } else if (option == "--now") {
            options.now = value();
        } else if (option == "--system") {
            options.system_prompt = value();
        } else if (option == "--think") {
            options.enable_thinking = parse_switch(option, value());
        } else if (option == "-m" || option == "--model") {
            options.model_path = value();
        } else if (option == "-p" || option == "--prompt") {
            options.prompt = value();
        } else if (option == "--prompt-ids") {
            options.prompt_ids = parse_ids(value());
        } else if (option == "-n" || option == "--max-tokens") {
            options.max_tokens = parse_number<int>(option, value());
        } else if (option == "-t" || option == "--threads") {
            options.threads = parse_number<int>(option, value());
        } else if (option == "--backend") {
            options.backend = value();
            parse_backend_preference(options.backend);  // names the choices when unknown
        } else if (option == "--device") {
            options.device = parse_number<uint32_t>(option, value());
        } else if (option == "--kv-type") {
            options.kv_cache = parse_kv_cache_type(value());
        } else if (option == "--remote") {
            options.remote_url = value();
        } else if (option == "--api-key-env") {
            options.api_key_env = value();
        } else if (option == "--trust-cert") {
            options.trust_certificate = value();
        } else if (option == "--list-models") {
            options.list_models = true;
        } else if (option == "--no-stream") {
            options.no_stream = true;
        } else if (option == "--download") {
            options.mode = CliMode::Download;
            options.download = value();
        } else if (option == "--dir") {
            options.download_dir = value();
        } else if (option == "--list-devices") {
            options.mode = CliMode::ListDevices;
        } else if (option == "--ctx") {
            options.context_length = parse_number<int>(option, value());
        } else if (option == "--dump-logits") {
            options.mode = CliMode::DumpLogits;
            options.dump_logits = parse_number<int>(option, value());
            if (options.dump_logits <= 0) throw std::invalid_argument("--dump-logits needs K > 0");
        } else if (option == "--temp") {
            options.sampler.temperature = parse_number<float>(option, value());
        } else if (option == "--top-k") {
            options.sampler.top_k = parse_number<int>(option, value());
        } else if (option == "--top-p") {
            options.sampler.top_p = parse_number<float>(option, value());
        } else if (option == "--min-p") {
            options.sampler.min_p = parse_number<float>(option, value());
        } else if (option == "--repeat-penalty") {
            options.sampler.repeat_penalty = parse_number<float>(option, value());
        } else if (option == "--stop") {
            options.stop_strings.push_back(value());
        } else if (option == "--speculative") {
            options.speculative = true;
        } else if (option == "--draft") {
            options.draft_path = value();
            options.speculative = true;
        } else if (option == "--json") {
            options.json = true;
        } else if (option == "--json-schema") {
            options.json = true;
            options.json_schema_file = value();
        } else if (option == "--chunk") {
            options.chunk_tokens = parse_number<int>(option, value());
            if (options.chunk_tokens < 1) throw std::invalid_argument("--chunk needs N >= 1");
        } else if (option == "--seed") {
            options.sampler.seed = parse_number<uint64_t>(option, value());
            options.seed_given = true;
        } else {
            throw std::invalid_argument("unknown option '" + option + "'");
        }
    }
    if (options.max_tokens && *options.max_tokens < 0)
        throw std::invalid_argument("-n must be >= 0");
    if (options.context_length < 0) throw std::invalid_argument("--ctx must be >= 0");
    if (options.threads < 0) throw std::invalid_argument("-t must be >= 0");
    if (options.device && options.backend != "vulkan")
        throw std::invalid_argument("--device needs --backend vulkan");
    check_remote_options(options);
    if (!options.download_dir.empty() && options.mode != CliMode::Download)
        throw std::invalid_argument("--dir needs --download REPO[:FILE]");
    const bool needs_prompt =
        (options.mode == CliMode::Generate || options.mode == CliMode::Chat) &&
        !options.list_models;
    if (!options.help && !options.version && needs_prompt && options.prompt.empty() &&
        options.prompt_ids.empty()) {
        throw std::invalid_argument("no prompt: give -p PROMPT or --prompt-ids");
    }
    if (options.mode == CliMode::DumpLogits && options.prompt_ids.empty()) {
        throw std::invalid_argument("--dump-logits needs --prompt-ids");
    }
    if (options.enable_thinking && options.mode != CliMode::Chat &&
        options.mode != CliMode::RenderTemplate) {
        throw std::invalid_argument("--think needs --chat or --render-template");
    }
    if (options.reasoning_effort && options.mode != CliMode::Chat &&
        options.mode != CliMode::RenderTemplate) {
        throw std::invalid_argument("--reasoning-effort needs --chat or --render-template");
    }
    if (!options.tools_file.empty() && options.mode != CliMode::RenderTemplate) {
        throw std::invalid_argument("--tools needs --render-template");
    }
    if (options.mode == CliMode::RenderTemplate && options.messages_file.empty()) {
        throw std::invalid_argument("--render-template needs --messages MESSAGES.json");
    }
    return options;
}

}  // namespace hearth
