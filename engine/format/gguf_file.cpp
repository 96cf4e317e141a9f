#include "engine/format/gguf_file.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "engine/format/split_name.h"
#include "engine/model/load_error.h"

namespace hearth {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" little-endian
constexpr int kMaxArrayDepth = 4;
constexpr size_t kMaxNameLength = 1024;

// Bounds-checked sequential reads over the file's bytes, of which the first `available` are at
// hand (all of them for a mapped file, the header's for a download's beginning).
class ByteReader {
public:
    ByteReader(std::span<const std::byte> available, uint64_t file_size, std::string file)
        : m_bytes(available), m_file_size(file_size), m_file(std::move(file)) {}

    size_t position() const { return m_position; }
    // Bytes left in the whole file: what plausibility checks of counts and lengths compare with.
    size_t remaining() const { return m_file_size - m_position; }

    [[noreturn]] void fail(const std::string& message) const {
        throw LoadError(m_file + ": " + message);
    }

    bool has(size_t count) const {
        return count <= remaining() && count <= m_bytes.size() - m_position;
    }

    void need(size_t count, const std::string& what) const {
        if (count > remaining()) {
            fail("the file ends at byte " + std::to_string(m_file_size) + " while reading " + what +
                 " at byte " + std::to_string(m_position) + ": truncated or corrupt file");
        }
        if (count > m_bytes.size() - m_position) throw GgufHeaderIncomplete(m_position + count);
    }

    template <typename T>
    T read(const std::string& what) {
        need(sizeof(T), what);
        T value;
        std::memcpy(&value, m_bytes.data() + m_position, sizeof(T));
        m_position += sizeof(T);
        return value;
    }

    std::string read_string(const std::string& what) { return std::string(read_text(what)); }

    // A string's characters where they lie in the bytes read.
    std::string_view read_text(const std::string& what) {
        // The message is made only for a length that is not there: a vocabulary has 262,144.
        if (!has(sizeof(uint64_t))) need(sizeof(uint64_t), "the length of " + what);
        const auto length = read<uint64_t>(what);
        if (length > remaining()) {
            fail(what + " claims " + std::to_string(length) + " bytes but only " +
                 std::to_string(remaining()) + " remain: truncated or corrupt file");
        }
        need(length, what);
        const std::string_view text(reinterpret_cast<const char*>(m_bytes.data() + m_position),
                                    length);
        m_position += length;
        return text;
    }

private:
    std::span<const std::byte> m_bytes;
    uint64_t m_file_size;
    std::string m_file;
    size_t m_position = 0;
};

GgufValueType read_value_type(ByteReader& reader, const std::string& what) {
    const auto raw = reader.read<uint32_t>("the value type of " + what);
    if (raw > static_cast<uint32_t>(GgufValueType::Float64)) {
        reader.fail(what + " has unknown value type " + std::to_string(raw));
    }
    return static_cast<GgufValueType>(raw);
}

// Smallest encoding of one value of `type`, used to refuse absurd array counts before allocating.
size_t minimum_encoded_size(GgufValueType type) {
    if (type == GgufValueType::String) return 8;  // its length
    if (type == GgufValueType::Array) return 12;  // its element type and count
    return gguf_scalar_size(type);
}

GgufValue read_value(ByteReader& reader, GgufValueType type, const std::string& what, int depth);

// The characters of the `count` strings ahead, read (and checked) by a copy of the reader, so
// that an array of them is given its whole buffer at once rather than grown into twice its size.
size_t characters_ahead(const ByteReader& reader, uint64_t count, const std::string& what) {
    ByteReader scout = reader;
    size_t characters = 0;
    for (uint64_t i = 0; i < count; ++i) characters += scout.read_text(what).size();
    return characters;
}

GgufArray read_array(ByteReader& reader, const std::string& what, int depth) {
    if (depth >= kMaxArrayDepth) reader.fail(what + " nests arrays too deeply");
    GgufArray array(read_value_type(reader, "the elements of " + what));
    const GgufValueType type = array.element_type();
    const auto count = reader.read<uint64_t>("the element count of " + what);
    if (count > kMaxArrayElements && count <= reader.remaining()) {
        reader.fail(what + " has " + std::to_string(count) +
                    " elements, more than Hearth reads in one array (kMaxArrayElements, " +
                    std::to_string(kMaxArrayElements) + ")");
    }
    if (count > reader.remaining() / minimum_encoded_size(type)) {
        reader.fail(what + " claims " + std::to_string(count) + " elements but only " +
                    std::to_string(reader.remaining()) +
                    " bytes remain: truncated or corrupt file");
    }
    const bool strings = type == GgufValueType::String;
    // Nested arrays grow as they are read: reserving the count a hostile file claims would cost
    // about 110 bytes for each 12 of the file.
    if (type != GgufValueType::Array)
        array.reserve(count, strings ? characters_ahead(reader, count, what) : 0);
    for (uint64_t i = 0; i < count; ++i) {
        if (strings) {
            array.push_back(reader.read_text(what));
        } else if (type == GgufValueType::Array) {
            array.push_back(read_array(reader, what, depth + 1));
        } else {
            array.push_back(read_value(reader, type, what, depth + 1));
        }
    }
    return array;
}

GgufValue read_value(ByteReader& reader, GgufValueType type, const std::string& what, int depth) {
    switch (type) {
        case GgufValueType::UInt8:
            return GgufValue(reader.read<uint8_t>(what));
        case GgufValueType::Int8:
            return GgufValue(reader.read<int8_t>(what));
        case GgufValueType::UInt16:
            return GgufValue(reader.read<uint16_t>(what));
        case GgufValueType::Int16:
            return GgufValue(reader.read<int16_t>(what));
        case GgufValueType::UInt32:
            return GgufValue(reader.read<uint32_t>(what));
        case GgufValueType::Int32:
            return GgufValue(reader.read<int32_t>(what));
        case GgufValueType::Float32:
            return GgufValue(reader.read<float>(what));
        case GgufValueType::UInt64:
            return GgufValue(reader.read<uint64_t>(what));
        case GgufValueType::Int64:
            return GgufValue(reader.read<int64_t>(what));
        case GgufValueType::Float64:
            return GgufValue(reader.read<double>(what));
        case GgufValueType::Bool: {
            const auto raw = reader.read<uint8_t>(what);
            if (raw > 1)
                reader.fail(what + " is a bool with the invalid value " + std::to_string(raw));
            return GgufValue(raw == 1);
        }
        case GgufValueType::String:
            return GgufValue(reader.read_string(what));
        case GgufValueType::Array:
            return GgufValue(read_array(reader, what, depth));
    }
    reader.fail(what + " has an unknown value type");
}

std::string in_quotes(const std::string& name) {
    return "'" + name + "'";
}

// With a split model, mapping each part reports progress over all parts' bytes, so a progress
// bar moves once from empty to full rather than once per part.
MapOptions progress_share(const MapOptions& options, uintmax_t before, uintmax_t total) {
    if (!options.progress || total == 0) return options;
    MapOptions shared = options;
    shared.progress = [progress = options.progress, before, total](size_t done, size_t) {
        return progress(static_cast<size_t>(before + done), static_cast<size_t>(total));
    };
    return shared;
}

}  // namespace

GgufFile::GgufFile(std::filesystem::path path, const MapOptions& options)
    : GgufFile(path, progress_share(options, 0, split_set_size(path)), PartKey{}) {
    open_other_parts(options);
}

GgufFile::GgufFile(std::filesystem::path path, const MapOptions& options, PartKey)
    : m_path(std::move(path)),
      m_map(std::make_unique<MappedFile>(m_path, options)),
      m_file_size(m_map->size()) {
    parse(m_map->bytes());
}

int64_t GgufFile::split_count() const {
    const int64_t count = get_integer("split.count").value_or(1);
    const int64_t number = get_integer("split.no").value_or(0);
    if (count == 1 && number == 0) return 1;
    const std::string file = m_path.string();
    if (count < 1 || count > 99999 || number < 0 || number >= count) {
        throw LoadError(file + ": split.no " + std::to_string(number) + " and split.count " +
                        std::to_string(count) +
                        " do not name a part of a split model: corrupt file");
    }
    if (number != 0) {
        const auto name = parse_split_name(m_path);
        const std::string first =
            name ? split_part_path(name->prefix, 1, static_cast<int>(count)).filename().string()
                 : "the part numbered 00001";
        throw LoadError(file + ": this is part " + std::to_string(number + 1) + " of " +
                        std::to_string(count) + " of a split model; open its first part, " + first +
                        ", which loads every part");
    }
    return count;
}

void GgufFile::open_other_parts(const MapOptions& options) {
    const int64_t count = split_count();
    if (count == 1) return;
    const std::string file = m_path.string();
    const auto name = parse_split_name(m_path);
    if (!name || name->number != 1 || name->count != count) {
        throw LoadError(
            file + ": the first part of a split model of " + std::to_string(count) +
            " parts, but its name does not end in " +
            split_part_path("", 1, static_cast<int>(count)).filename().string() +
            ", so the other parts cannot be found; keep the names gguf-split gave them");
    }
    const uintmax_t total = split_set_size(m_path);
    uintmax_t before = m_file_size;
    for (int part_number = 2; part_number <= count; ++part_number) {
        const auto part_path = split_part_path(name->prefix, part_number, static_cast<int>(count));
        std::error_code error;
        if (!std::filesystem::is_regular_file(part_path, error)) {
            throw LoadError(file + ": part " + std::to_string(part_number) + " of " +
                            std::to_string(count) + " of this split model is missing: " +
                            part_path.string() + " (download every part into the same folder)");
        }
        auto part = std::make_unique<GgufFile>(part_path, progress_share(options, before, total),
                                               PartKey{});
        before += part->m_file_size;
        add_part(std::move(part), part_number - 1, count);
    }
    check_split_tensor_count();
}

GgufFile::GgufFile(std::span<const GgufBeginning> parts) : GgufFile(first_beginning(parts)) {
    const int64_t count = split_count();
    if (static_cast<int64_t>(parts.size()) != count) {
        throw LoadError(m_path.string() + ": a model split into " + std::to_string(count) +
                        " parts, but the headers of " + std::to_string(parts.size()) +
                        " were read: every part is needed");
    }
    for (size_t index = 1; index < parts.size(); ++index) {
        add_part(std::make_unique<GgufFile>(parts[index]), static_cast<int64_t>(index), count);
    }
    check_split_tensor_count();
}

const GgufBeginning& GgufFile::first_beginning(std::span<const GgufBeginning> parts) {
    if (parts.empty()) throw LoadError("no GGUF header was read: there is no model to describe");
    return parts.front();
}

void GgufFile::add_part(std::unique_ptr<GgufFile> part, int64_t number, int64_t count) {
    part->check_part_of(*this, number, count);
    adopt_tensors(*part);
    m_parts.push_back(std::move(part));
}

void GgufFile::check_split_tensor_count() const {
    const auto expected = get_integer("split.tensors.count");
    if (expected && *expected != static_cast<int64_t>(m_tensors.size())) {
        throw LoadError(m_path.string() + ": the parts of this split model hold " +
                        std::to_string(m_tensors.size()) + " tensors but split.tensors.count is " +
                        std::to_string(*expected) + ": a part is from another split");
    }
}

void GgufFile::check_part_of(const GgufFile& first, int64_t number, int64_t count) const {
    const auto own_count = get_integer("split.count");
    const auto own_number = get_integer("split.no");
    if (!own_count || !own_number) {
        throw LoadError(m_path.string() + ": has no split.no and split.count, so it is not part " +
                        std::to_string(number + 1) + " of the split model " +
                        first.m_path.string());
    }
    if (*own_count != count || *own_number != number) {
        throw LoadError(m_path.string() + ": is part " + std::to_string(*own_number + 1) + " of " +
                        std::to_string(*own_count) + ", not part " + std::to_string(number + 1) +
                        " of " + std::to_string(count) + " as " + first.m_path.string() +
                        " needs: a part from another split");
    }
}

void GgufFile::adopt_tensors(const GgufFile& part) {
    for (const auto& tensor : part.m_tensors) {
        if (m_tensor_index.contains(tensor.name)) {
            std::filesystem::path holder = m_path;
            for (const auto& earlier : m_parts) {
                if (earlier->find_tensor(tensor.name) != nullptr) holder = earlier->m_path;
            }
            throw LoadError(part.m_path.string() + ": tensor " + in_quotes(tensor.name) +
                            " is also in " + holder.string() +
                            ": a split model holds each tensor in one part only");
        }
        m_tensor_index.emplace(tensor.name, m_tensors.size());
        m_tensors.push_back(tensor);  // its data points into the part's mapping, kept in m_parts
    }
}

size_t GgufFile::file_size() const {
    size_t total = m_file_size;
    for (const auto& part : m_parts) total += part->m_file_size;
    return total;
}

GgufFile::GgufFile(const GgufBeginning& beginning)
    : m_path(beginning.name), m_file_size(beginning.file_size) {
    if (beginning.bytes.size() > beginning.file_size) {
        throw LoadError(beginning.name + ": " + std::to_string(beginning.bytes.size()) +
                        " bytes read from a file said to hold " +
                        std::to_string(beginning.file_size));
    }
    parse(beginning.bytes);
}

void GgufFile::parse(std::span<const std::byte> available) {
    ByteReader reader(available, m_file_size, m_path.string());
    if (reader.read<uint32_t>("the file header") != kMagic) {
        reader.fail("not a GGUF file (the first four bytes are not 'GGUF')");
    }
    m_version = reader.read<uint32_t>("the format version");
    if (m_version != 2 && m_version != 3) {
        reader.fail("GGUF version " + std::to_string(m_version) +
                    " is not supported (Hearth reads versions 2 and 3)");
    }
    const auto tensor_count = reader.read<uint64_t>("the tensor count");
    const auto metadata_count = reader.read<uint64_t>("the metadata count");
    // Each metadata entry needs at least 13 bytes and each tensor entry at least 28.
    if (metadata_count > reader.remaining() / 13 || tensor_count > reader.remaining() / 28) {
        reader.fail("the header claims " + std::to_string(metadata_count) +
                    " metadata entries and " + std::to_string(tensor_count) +
                    " tensors, more than the file can hold: truncated or corrupt file");
    }

    for (uint64_t i = 0; i < metadata_count; ++i) {
        auto key = reader.read_string("metadata key #" + std::to_string(i));
        if (key.empty() || key.size() > kMaxNameLength) {
            reader.fail("metadata key #" + std::to_string(i) + " has an invalid length " +
                        std::to_string(key.size()));
        }
        const std::string what = "metadata key " + in_quotes(key);
        const auto type = read_value_type(reader, what);
        auto value = read_value(reader, type, what, 0);
        if (!m_metadata.emplace(key, std::move(value)).second) {
            reader.fail(what + " appears twice");
        }
    }

    if (const auto* value = find("general.alignment")) {
        const auto alignment = value->as_integer();
        if (!alignment || *alignment <= 0 || *alignment > (1 << 16) ||
            (*alignment & (*alignment - 1)) != 0) {
            reader.fail("metadata key 'general.alignment' must be a power of two up to 65536");
        }
        m_alignment = static_cast<uint64_t>(*alignment);
    }

    m_tensors.reserve(tensor_count);
    for (uint64_t i = 0; i < tensor_count; ++i) {
        GgufTensor tensor;
        tensor.name = reader.read_string("the name of tensor #" + std::to_string(i));
        if (tensor.name.empty() || tensor.name.size() > kMaxNameLength) {
            reader.fail("tensor #" + std::to_string(i) + " has an invalid name length " +
                        std::to_string(tensor.name.size()));
        }
        const std::string what = "tensor " + in_quotes(tensor.name);
        const auto dims = reader.read<uint32_t>("the dimension count of " + what);
        if (dims == 0 || dims > kMaxTensorDims) {
            reader.fail(what + " has " + std::to_string(dims) + " dimensions (1 to 4 allowed)");
        }
        tensor.elements = 1;
        for (uint32_t d = 0; d < dims; ++d) {
            const auto extent = reader.read<uint64_t>("the shape of " + what);
            if (extent == 0 || extent > (uint64_t{1} << 40) ||
                tensor.elements > (uint64_t{1} << 48) / extent) {
                reader.fail(what + " has an impossible shape (dimension " + std::to_string(d) +
                            " is " + std::to_string(extent) + ")");
            }
            tensor.shape.push_back(extent);
            tensor.elements *= extent;
        }
        const auto type_id = reader.read<uint32_t>("the type of " + what);
        const auto type = tensor_type_from_id(type_id);
        if (!type) {
            reader.fail(what + " has type " + tensor_type_name(type_id) +
                        ", which Hearth does not support (supported: " + supported_type_names() +
                        ")");
        }
        tensor.type = *type;
        const auto block = static_cast<uint64_t>(tensor_type_info(tensor.type).block_elements);
        if (tensor.shape[0] % block != 0) {
            reader.fail(what + " has rows of " + std::to_string(tensor.shape[0]) +
                        " elements, not a multiple of " +
                        std::string(tensor_type_info(*type).name) + "'s block of " +
                        std::to_string(block));
        }
        tensor.bytes = tensor_bytes(tensor.type, tensor.elements);
        tensor.offset = reader.read<uint64_t>("the offset of " + what);
        if (tensor.offset % m_alignment != 0) {
            reader.fail(what + " starts at offset " + std::to_string(tensor.offset) +
                        ", which is not a multiple of the alignment " +
                        std::to_string(m_alignment));
        }
        if (!m_tensor_index.emplace(tensor.name, m_tensors.size()).second) {
            reader.fail(what + " appears twice");
        }
        m_tensors.push_back(std::move(tensor));
    }

    const uint64_t data_start = (reader.position() + m_alignment - 1) / m_alignment * m_alignment;
    m_data_offset = data_start;
    const uint64_t file_size = m_file_size;
    for (auto& tensor : m_tensors) {
        const uint64_t begin = data_start + tensor.offset;
        if (tensor.offset > file_size || begin > file_size || tensor.bytes > file_size - begin) {
            reader.fail("tensor " + in_quotes(tensor.name) + " ends at byte " +
                        std::to_string(begin + tensor.bytes) + " but the file has " +
                        std::to_string(file_size) + " bytes: truncated or corrupt file");
        }
        tensor.data = m_map ? m_map->bytes().data() + begin : nullptr;
        if (m_map) tensor.layout = m_map->layout();
    }

    std::vector<const GgufTensor*> by_offset;
    for (const auto& tensor : m_tensors) by_offset.push_back(&tensor);
    std::sort(by_offset.begin(), by_offset.end(),
              [](const auto* a, const auto* b) { return a->offset < b->offset; });
    for (size_t i = 1; i < by_offset.size(); ++i) {
        if (by_offset[i - 1]->offset + by_offset[i - 1]->bytes > by_offset[i]->offset) {
            reader.fail("tensors " + in_quotes(by_offset[i - 1]->name) + " and " +
                        in_quotes(by_offset[i]->name) + " overlap: corrupt file");
        }
    }
}

const GgufValue* GgufFile::find(const std::string& key) const {
    const auto it = m_metadata.find(key);
    return it == m_metadata.end() ? nullptr : &it->second;
}

void GgufFile::type_error(const std::string& key, const char* expected) const {
    throw LoadError(m_path.string() + ": metadata key " + in_quotes(key) + " has type " +
                    std::string(gguf_value_type_name(find(key)->type())) + ", expected " +
                    expected);
}

std::optional<int64_t> GgufFile::get_integer(const std::string& key) const {
    const auto* value = find(key);
    if (value == nullptr) return std::nullopt;
    if (auto integer = value->as_integer()) return integer;
    type_error(key, "an integer");
}

std::optional<double> GgufFile::get_number(const std::string& key) const {
    const auto* value = find(key);
    if (value == nullptr) return std::nullopt;
    if (auto number = value->as_number()) return number;
    type_error(key, "a number");
}

std::optional<std::string> GgufFile::get_string(const std::string& key) const {
    const auto* value = find(key);
    if (value == nullptr) return std::nullopt;
    if (const auto* text = value->as_string()) return *text;
    type_error(key, "a string");
}

std::optional<bool> GgufFile::get_bool(const std::string& key) const {
    const auto* value = find(key);
    if (value == nullptr) return std::nullopt;
    if (auto flag = value->as_bool()) return flag;
    type_error(key, "a bool");
}

const GgufArray* GgufFile::get_array(const std::string& key) const {
    const auto* value = find(key);
    if (value == nullptr) return nullptr;
    if (const auto* array = value->as_array()) return array;
    type_error(key, "an array");
}

const GgufTensor* GgufFile::find_tensor(const std::string& name) const {
    const auto it = m_tensor_index.find(name);
    return it == m_tensor_index.end() ? nullptr : &m_tensors[it->second];
}

}  // namespace hearth
