// hearth-retemplate IN.gguf OUT.gguf TEMPLATE.jinja: a copy of a model with another chat
// template (every tensor and other key as it was). The screenshot tour gives the bundled story
// model DeepSeek-R1's template with it, whose prompt ends inside a <think> block, so its
// answers stream into a Thinking block.
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "engine/format/gguf_rewrite.h"

int main(int argc, char** argv) {
    if (argc != 4) {
        fmt::print(stderr, "usage: hearth-retemplate IN.gguf OUT.gguf TEMPLATE.jinja\n");
        return 2;
    }
    try {
        std::ifstream file(argv[3], std::ios::binary);
        if (!file) throw std::runtime_error(fmt::format("cannot read {}", argv[3]));
        std::ostringstream text;
        text << file.rdbuf();
        hearth::write_rewritten(*hearth::GgufFile::open(argv[1]), argv[2],
                                {.chat_template = text.str()});
        return 0;
    } catch (const std::exception& error) {
        fmt::print(stderr, "hearth-retemplate: {}\n", error.what());
        return 1;
    }
}
