// Files a test writes for itself, under a directory removed when the holder goes away.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace hearth::test {

class TempDirectory final {
public:
    TempDirectory();
    ~TempDirectory();
    TempDirectory(const TempDirectory&) = delete;
    TempDirectory& operator=(const TempDirectory&) = delete;

    const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path write(const std::string& name, const std::vector<std::byte>& bytes) const;

private:
    std::filesystem::path m_path;
};

std::vector<std::byte> read_bytes(const std::filesystem::path& path);

}  // namespace hearth::test
