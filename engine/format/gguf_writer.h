// Writes GGUF v3 files: used by the benchmark model generator and by tests that craft files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/format/gguf_value.h"
#include "engine/format/tensor_types.h"

namespace hearth {

class GgufWriter final {
public:
    explicit GgufWriter(uint32_t alignment = 32);

    void set(const std::string& key, GgufValue value);
    // `data` must hold exactly the bytes `type` needs for `shape` (innermost dimension first).
    void add_tensor(std::string name, TensorType type, std::vector<uint64_t> shape,
                    std::vector<std::byte> data);
    // A tensor whose bytes `produce` makes when the file is written, in the order tensors were
    // added and at most one at a time: a file of many gigabytes then needs the memory of its
    // largest tensor, not of all of them. Writing throws std::invalid_argument when the bytes do
    // not match the shape.
    using TensorProducer = std::function<std::vector<std::byte>()>;
    void add_tensor(std::string name, TensorType type, std::vector<uint64_t> shape,
                    TensorProducer produce);

    // The whole file in memory, for small files and tests.
    std::vector<std::byte> serialize() const;
    // Throws std::runtime_error naming the path when the file cannot be written completely.
    void write(const std::filesystem::path& path) const;

private:
    struct PendingTensor {
        std::string name;
        TensorType type;
        std::vector<uint64_t> shape;
        std::vector<std::byte> data;  // empty while `produce` is to make it
        TensorProducer produce;
        uint64_t bytes;
        uint64_t offset;
    };

    std::vector<std::byte> header() const;
    // The tensor's bytes: its data, or what its producer makes, checked against its shape.
    static std::vector<std::byte> bytes_of(const PendingTensor& tensor);

    uint32_t m_alignment;
    std::vector<std::pair<std::string, GgufValue>> m_metadata;
    std::vector<PendingTensor> m_tensors;
    uint64_t m_data_size = 0;
};

}  // namespace hearth
