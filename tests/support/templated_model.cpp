#include "tests/support/templated_model.h"

#include "engine/format/gguf_file.h"
#include "engine/format/gguf_rewrite.h"
#include "tests/support/shared_data.h"

namespace hearth::test {

std::filesystem::path model_with_template(const TempDirectory& directory, const std::string& model,
                                          const std::string& chat_template) {
    return model_with_template(directory, model, chat_template, {});
}

std::filesystem::path model_with_template(const TempDirectory& directory, const std::string& model,
                                          const std::string& chat_template,
                                          const std::map<int32_t, std::string>& token_texts,
                                          const std::set<int32_t>& control) {
    const auto path = directory.path() / model;
    write_rewritten(
        *GgufFile::open(model_path(model)), path,
        {.chat_template = chat_template, .token_texts = token_texts, .control_tokens = control});
    return path;
}
}  // namespace hearth::test
