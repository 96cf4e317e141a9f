#include "tests/support/split_model.h"

#include "engine/format/gguf_writer.h"
#include "engine/format/split_name.h"

namespace hearth::test {

std::filesystem::path write_split_part(const GgufFile& source, const std::filesystem::path& prefix,
                                       int number, int count,
                                       const std::vector<std::string>& names) {
    GgufWriter writer(static_cast<uint32_t>(source.alignment()));
    if (number == 1) {
        for (const auto& [key, value] : source.metadata()) writer.set(key, value);
    }
    // The types gguf-split writes.
    writer.set("split.no", GgufValue(static_cast<uint16_t>(number - 1)));
    writer.set("split.count", GgufValue(static_cast<uint16_t>(count)));
    writer.set("split.tensors.count", GgufValue(static_cast<int32_t>(source.tensors().size())));
    for (const auto& name : names) {
        const auto& tensor = *source.find_tensor(name);
        writer.add_tensor(tensor.name, tensor.type, tensor.shape,
                          std::vector<std::byte>(tensor.data, tensor.data + tensor.bytes));
    }
    const auto path = split_part_path(prefix, number, count);
    writer.write(path);
    return path;
}

std::vector<std::vector<std::string>> split_tensor_names(const GgufFile& source, int count) {
    const auto& tensors = source.tensors();
    std::vector<std::vector<std::string>> parts(static_cast<size_t>(count));
    for (size_t i = 0; i < tensors.size(); ++i)
        parts[i * static_cast<size_t>(count) / tensors.size()].push_back(tensors[i].name);
    return parts;
}

std::vector<std::filesystem::path> write_split_model(const GgufFile& source,
                                                     const std::filesystem::path& prefix,
                                                     int count) {
    const auto names = split_tensor_names(source, count);
    std::vector<std::filesystem::path> paths;
    for (int number = 1; number <= count; ++number)
        paths.push_back(write_split_part(source, prefix, number, count,
                                         names[static_cast<size_t>(number - 1)]));
    return paths;
}

}  // namespace hearth::test
