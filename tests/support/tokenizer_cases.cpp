#include "tests/support/tokenizer_cases.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hearth::test {
namespace {

std::string read_text(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    if (!stream) throw std::runtime_error("cannot read " + path.string());
    std::ostringstream content;
    content << stream.rdbuf();
    return content.str();
}

}  // namespace

std::vector<TokenizerCase> load_tokenizer_cases(const std::filesystem::path& vocabulary) {
    const std::string input = read_text(vocabulary.string() + ".inp");
    const std::string separator = "\n__ggml_vocab_test__\n";
    std::vector<TokenizerCase> cases;
    for (size_t start = 0; start < input.size();) {
        const size_t end = input.find(separator, start);
        if (end == std::string::npos) break;
        cases.push_back({input.substr(start, end - start), {}});
        start = end + separator.size();
    }
    std::istringstream output(read_text(vocabulary.string() + ".out"));
    std::string line;
    for (auto& test_case : cases) {
        if (!std::getline(output, line))
            throw std::runtime_error("fewer expected lines than cases");
        std::istringstream ids(line);
        for (int32_t id; ids >> id;) test_case.ids.push_back(id);
    }
    return cases;
}

}  // namespace hearth::test
