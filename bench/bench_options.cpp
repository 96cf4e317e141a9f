#include "bench/bench_options.h"

#include <sstream>
#include <stdexcept>

namespace hearth::bench {

BenchOptions parse_bench_options(int argc, char** argv) {
    BenchOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string option = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument("option " + option + " needs a value");
            return argv[++i];
        };
        const auto number = [&]() {
            const std::string text = value();
            try {
                return std::stoi(text);
            } catch (const std::exception&) {
                throw std::invalid_argument("option " + option + " expects a number, got '" + text +
                                            "'");
            }
        };
        if (option == "-m") {
            options.model_path = value();
        } else if (option == "-p") {
            options.prompt_sizes.clear();
            std::stringstream list(value());
            for (std::string item; std::getline(list, item, ',');)
                options.prompt_sizes.push_back(std::stoi(item));
        } else if (option == "-n") {
            options.generate = number();
        } else if (option == "-d") {
            options.depth = number();
        } else if (option == "-r") {
            options.repetitions = number();
        } else if (option == "-t") {
            options.threads = number();
        } else if (option == "--backend") {
            options.backend = value();
        } else if (option == "--isa") {
            options.isa = value();
        } else if (option == "--file-layout") {
            options.file_layout = true;
        } else if (option == "--kv-type") {
            options.kv_cache = parse_kv_cache_type(value());
        } else if (option == "--device") {
            options.device = static_cast<uint32_t>(number());
        } else if (option == "--json") {
            options.json = true;
        } else if (option == "--decode-paths") {
            options.decode_paths = true;
        } else if (option == "--draft") {
            options.draft_path = value();
        } else {
            throw std::invalid_argument("unknown option '" + option + "'");
        }
    }
    if (options.model_path.empty()) throw std::invalid_argument("give a model with -m MODEL.gguf");
    if (options.repetitions < 1 || options.generate < 0 || options.depth < 0)
        throw std::invalid_argument("-r must be >= 1, -n and -d >= 0");
    return options;
}

}  // namespace hearth::bench
