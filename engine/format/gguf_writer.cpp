#include "engine/format/gguf_writer.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace hearth {
namespace {

uint64_t align_up(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

uint64_t element_count(const std::vector<uint64_t>& shape) {
    uint64_t elements = 1;
    for (const auto extent : shape) elements *= extent;
    return elements;
}

class ByteSink {
public:
    explicit ByteSink(std::vector<std::byte>& out) : m_out(out) {}

    template <typename T>
    void put(T value) {
        const auto* bytes = reinterpret_cast<const std::byte*>(&value);
        m_out.insert(m_out.end(), bytes, bytes + sizeof(T));
    }
    void put_string(std::string_view text) {
        put<uint64_t>(text.size());
        const auto* bytes = reinterpret_cast<const std::byte*>(text.data());
        m_out.insert(m_out.end(), bytes, bytes + text.size());
    }
    void put_array(const GgufArray& array) {
        put<uint32_t>(static_cast<uint32_t>(array.element_type()));
        put<uint64_t>(array.size());
        for (size_t i = 0; i < array.size(); ++i) {
            // Strings and arrays without the copy a value of their own would make.
            if (array.element_type() == GgufValueType::String) {
                put_string(array.string_at(i));
            } else if (array.element_type() == GgufValueType::Array) {
                put_array(array.array_at(i));
            } else {
                put_value(array.value_at(i));
            }
        }
    }
    void put_value(const GgufValue& value) {
        std::visit(
            [this](const auto& v) {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, std::string>) {
                    put_string(v);
                } else if constexpr (std::is_same_v<T, GgufArray>) {
                    put_array(v);
                } else if constexpr (std::is_same_v<T, bool>) {
                    put<uint8_t>(v ? 1 : 0);
                } else {
                    put<T>(v);
                }
            },
            value.storage());
    }

private:
    std::vector<std::byte>& m_out;
};

}  // namespace

GgufWriter::GgufWriter(uint32_t alignment) : m_alignment(alignment) {
    if (alignment != 32) set("general.alignment", GgufValue(alignment));
}

void GgufWriter::set(const std::string& key, GgufValue value) {
    for (auto& entry : m_metadata) {
        if (entry.first == key) {
            entry.second = std::move(value);
            return;
        }
    }
    m_metadata.emplace_back(key, std::move(value));
}

void GgufWriter::add_tensor(std::string name, TensorType type, std::vector<uint64_t> shape,
                            std::vector<std::byte> data) {
    if (data.size() != tensor_bytes(type, element_count(shape))) {
        throw std::invalid_argument("tensor '" + name + "' data size does not match its shape");
    }
    add_tensor(std::move(name), type, std::move(shape), TensorProducer());
    m_tensors.back().data = std::move(data);
}

void GgufWriter::add_tensor(std::string name, TensorType type, std::vector<uint64_t> shape,
                            TensorProducer produce) {
    m_data_size = align_up(m_data_size, m_alignment);
    const uint64_t bytes = tensor_bytes(type, element_count(shape));
    m_tensors.push_back(
        {std::move(name), type, std::move(shape), {}, std::move(produce), bytes, m_data_size});
    m_data_size += bytes;
}

std::vector<std::byte> GgufWriter::bytes_of(const PendingTensor& tensor) {
    if (!tensor.produce) return tensor.data;
    auto bytes = tensor.produce();
    if (bytes.size() != tensor.bytes) {
        throw std::invalid_argument("tensor '" + tensor.name +
                                    "' data size does not match its shape");
    }
    return bytes;
}

std::vector<std::byte> GgufWriter::header() const {
    std::vector<std::byte> out;
    ByteSink sink(out);
    sink.put<uint32_t>(0x46554747);
    sink.put<uint32_t>(3);
    sink.put<uint64_t>(m_tensors.size());
    sink.put<uint64_t>(m_metadata.size());
    for (const auto& [key, value] : m_metadata) {
        sink.put_string(key);
        sink.put<uint32_t>(static_cast<uint32_t>(value.type()));
        sink.put_value(value);
    }
    for (const auto& tensor : m_tensors) {
        sink.put_string(tensor.name);
        sink.put<uint32_t>(static_cast<uint32_t>(tensor.shape.size()));
        for (const auto extent : tensor.shape) sink.put<uint64_t>(extent);
        sink.put<uint32_t>(static_cast<uint32_t>(tensor.type));
        sink.put<uint64_t>(tensor.offset);
    }
    out.resize(align_up(out.size(), m_alignment));
    return out;
}

std::vector<std::byte> GgufWriter::serialize() const {
    auto out = header();
    const size_t data_start = out.size();
    out.resize(data_start + m_data_size);
    for (const auto& tensor : m_tensors) {
        const auto bytes = bytes_of(tensor);
        std::memcpy(out.data() + data_start + tensor.offset, bytes.data(), bytes.size());
    }
    return out;
}

void GgufWriter::write(const std::filesystem::path& path) const {
    std::ofstream stream(path, std::ios::binary | std::ios::trunc);
    if (!stream) throw std::runtime_error("cannot create " + path.string());
    const auto head = header();
    stream.write(reinterpret_cast<const char*>(head.data()),
                 static_cast<std::streamsize>(head.size()));
    uint64_t written = 0;
    const std::vector<char> padding(m_alignment, 0);
    for (const auto& tensor : m_tensors) {
        stream.write(padding.data(), static_cast<std::streamsize>(tensor.offset - written));
        const auto bytes = tensor.produce ? bytes_of(tensor) : std::vector<std::byte>();
        const auto& data = tensor.produce ? bytes : tensor.data;
        stream.write(reinterpret_cast<const char*>(data.data()),
                     static_cast<std::streamsize>(data.size()));
        written = tensor.offset + data.size();
    }
    stream.flush();
    if (!stream)
        throw std::runtime_error("could not write all of " + path.string() + " (disk full?)");
}

}  // namespace hearth
