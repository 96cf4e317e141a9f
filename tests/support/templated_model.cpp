#include "tests/support/templated_model.h"

#include "engine/format/gguf_file.h"
#include "engine/format/gguf_writer.h"
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
    const auto file = GgufFile::open(model_path(model));
    GgufWriter writer(static_cast<uint32_t>(file->alignment()));
    for (const auto& [key, value] : file->metadata()) {
        if (key == "tokenizer.ggml.tokens" && !token_texts.empty()) {
            GgufArray tokens = *value.as_array();
            for (const auto& [id, text] : token_texts) tokens.items.at(id) = GgufValue(text);
            writer.set(key, GgufValue(std::move(tokens)));
        } else if (key == "tokenizer.ggml.token_type" && !control.empty()) {
            GgufArray kinds = *value.as_array();
            for (const int32_t id : control) kinds.items.at(id) = GgufValue(int32_t{3});
            writer.set(key, GgufValue(std::move(kinds)));
        } else {
            writer.set(key, value);
        }
    }
    writer.set("tokenizer.chat_template", GgufValue(chat_template));
    for (const auto& tensor : file->tensors()) {
        writer.add_tensor(tensor.name, tensor.type, tensor.shape,
                          std::vector<std::byte>(tensor.data, tensor.data + tensor.bytes));
    }
    const auto path = directory.path() / model;
    writer.write(path);
    return path;
}

}  // namespace hearth::test
