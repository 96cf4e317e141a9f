// A read-only memory map of a whole file, released on destruction.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <span>

namespace hearth {

struct MapOptions {
    // Pre-fault every page, so the first token of a generation pays no page faults. Off for
    // reading metadata only (the model picker), where only the header's pages are touched.
    bool prefault = true;
    // Told the bytes made resident so far while pre-faulting; returning false cancels the load
    // (LoadCancelled).
    std::function<bool(size_t done, size_t total)> progress;
};

class MappedFile final {
public:
    // Maps `path` (see MapOptions). Throws LoadError naming the path and the system error.
    explicit MappedFile(const std::filesystem::path& path, const MapOptions& options = {});
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
