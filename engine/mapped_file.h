// A read-only memory map of a whole file, released on destruction.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

namespace hearth {

class MappedFile final {
public:
    // Maps `path` and pre-faults every page, so that the first token of a generation pays no
    // page faults. Throws LoadError naming the path and the system error.
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::span<const std::byte> bytes() const { return {m_data, m_size}; }
    size_t size() const { return m_size; }

private:
    const std::byte* m_data = nullptr;
    size_t m_size = 0;
};

}  // namespace hearth
