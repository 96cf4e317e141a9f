// A parsed, validated, memory-mapped GGUF file: metadata, tensor directory and tensor bytes.
// Nothing in the file is trusted: every count, length, offset, shape and type is checked
// against the file before use, and anything wrong is a LoadError naming the file and the part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/format/gguf_value.h"
#include "engine/format/mapped_file.h"
#include "engine/format/tensor_types.h"

namespace hearth {

inline constexpr int kMaxTensorDims = 4;
// The most elements one metadata array may hold. A string costs 8 bytes beyond its characters
// and a nested array about 110, so without a bound a file of N empty strings or arrays would
// cost 8 N to 110 N bytes of memory; the largest real arrays (vocabularies, BPE merges)
// hold well under a million.
inline constexpr uint64_t kMaxArrayElements = uint64_t{1} << 24;

struct GgufTensor {
    std::string name;
    TensorType type = TensorType::F32;
    std::vector<uint64_t> shape;  // innermost (contiguous) dimension first, as ggml stores it
    uint64_t elements = 0;
    uint64_t offset = 0;  // from the start of the data section
    size_t bytes = 0;
    const std::byte* data = nullptr;  // points into the mapping, valid while the file lives
    // The MapOptions::rewrite layout its file's bytes were loaded in; empty for the file's own.
    // The rewrite decides which tensors it changes.
    std::string layout;

    uint64_t row_length() const { return shape.empty() ? 0 : shape[0]; }
    uint64_t rows() const { return shape.empty() ? 0 : elements / shape[0]; }
};

// The first bytes of a GGUF file that is elsewhere (a download not yet made): enough to parse its
// header, with the whole file's size to check the tensor directory against.
struct GgufBeginning {
    std::span<const std::byte> bytes;
    uint64_t file_size = 0;
    std::string name;  // how errors name the file
};

// Parsing a GgufBeginning ran out of bytes before the header ended: the first `needed` bytes
// would hold at least the item it stopped in. Not a LoadError: the file may be fine.
class GgufHeaderIncomplete : public std::runtime_error {
public:
    explicit GgufHeaderIncomplete(uint64_t needed)
        : std::runtime_error("the GGUF header continues past the bytes read"), needed(needed) {}
    uint64_t needed;
};

class GgufFile final {
    // Lets only GgufFile open a split model's later parts as files of their own.
    class PartKey {
        friend class GgufFile;
        PartKey() = default;
    };

public:
    // Maps and parses the file. The first part of a split model (llama.cpp's gguf-split:
    // NAME-00001-of-0000N.gguf with split.* keys) opens and checks every other part next to it,
    // and its tensors are those of all parts together. Throws LoadError on any problem,
    // including a later part opened on its own and a missing or mismatched part.
    explicit GgufFile(std::filesystem::path path, const MapOptions& options = {});
    // One part of a split model, parsed without looking for the others.
    GgufFile(std::filesystem::path path, const MapOptions& options, PartKey);
    // Parses the header alone: metadata and the tensor directory, without tensor data (every
    // GgufTensor::data is null). Throws LoadError on any problem, GgufHeaderIncomplete when the
    // header runs past `beginning.bytes`. A split model's first part alone is parsed as it is:
    // its tensors are only those it holds.
    explicit GgufFile(const GgufBeginning& beginning);
    // The header of a whole model from the beginnings of all its files, first part first (one
    // for a single file): a split model's tensors are those of every part, checked as opening
    // the parts checks them. Throws LoadError on any problem, including a part missing, and
    // GgufHeaderIncomplete when one part's header runs past its bytes.
    explicit GgufFile(std::span<const GgufBeginning> parts);
    static std::unique_ptr<GgufFile> open(const std::filesystem::path& path,
                                          const MapOptions& options = {}) {
        return std::make_unique<GgufFile>(path, options);
    }
    GgufFile(const GgufFile&) = delete;
    GgufFile& operator=(const GgufFile&) = delete;

    const std::filesystem::path& path() const { return m_path; }
    uint32_t version() const { return m_version; }
    uint64_t alignment() const { return m_alignment; }
    // Bytes of the model on disk: with a split model, every part's together.
    size_t file_size() const;
    // False for a file parsed from its beginning alone: tensors have shapes but no bytes.
    bool has_tensor_data() const { return m_map != nullptr; }
    // Where tensor data begins; tensor offsets count from here (in a split model, from the data
    // section of the part holding the tensor).
    uint64_t data_offset() const { return m_data_offset; }

    const std::map<std::string, GgufValue>& metadata() const { return m_metadata; }
    const GgufValue* find(const std::string& key) const;
    // Typed look-ups: nullopt when the key is absent; LoadError when it has the wrong type.
    std::optional<int64_t> get_integer(const std::string& key) const;
    std::optional<double> get_number(const std::string& key) const;
    std::optional<std::string> get_string(const std::string& key) const;
    std::optional<bool> get_bool(const std::string& key) const;
    const GgufArray* get_array(const std::string& key) const;

    const std::vector<GgufTensor>& tensors() const { return m_tensors; }
    const GgufTensor* find_tensor(const std::string& name) const;

private:
    void parse(std::span<const std::byte> available);
    static const GgufBeginning& first_beginning(std::span<const GgufBeginning> parts);
    // split.count of a single file or a split model's first part (1 for a single file); throws
    // LoadError for corrupt split numbers and for a later part, which cannot stand for the model.
    int64_t split_count() const;
    void open_other_parts(const MapOptions& options);
    void add_part(std::unique_ptr<GgufFile> part, int64_t number, int64_t count);
    void check_split_tensor_count() const;
    void check_part_of(const GgufFile& first, int64_t number, int64_t count) const;
    void adopt_tensors(const GgufFile& part);
    [[noreturn]] void type_error(const std::string& key, const char* expected) const;

    std::filesystem::path m_path;
    std::unique_ptr<MappedFile> m_map;  // null when parsed from a GgufBeginning
    size_t m_file_size = 0;
    uint32_t m_version = 0;
    uint64_t m_alignment = 32;
    uint64_t m_data_offset = 0;
    std::map<std::string, GgufValue> m_metadata;
    std::vector<GgufTensor> m_tensors;
    std::map<std::string, size_t, std::less<>> m_tensor_index;
    std::vector<std::unique_ptr<GgufFile>> m_parts;  // a split model's parts after the first
};

}  // namespace hearth
