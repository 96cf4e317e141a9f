#include "engine/format/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/model/load_error.h"

namespace hearth {
namespace {

class FileDescriptor final {
public:
    explicit FileDescriptor(int fd) : m_fd(fd) {}
    ~FileDescriptor() {
        if (m_fd >= 0) ::close(m_fd);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

[[noreturn]] void fail(const std::filesystem::path& path, const char* what, int error) {
    throw LoadError(path.string() + ": " + what + ": " + std::strerror(error));
}

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path, const MapOptions& options) {
    const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) fail(path, "cannot open", errno);
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) fail(path, "cannot read file size", errno);
    if (!S_ISREG(info.st_mode)) throw LoadError(path.string() + ": not a regular file");
    if (info.st_size == 0) throw LoadError(path.string() + ": the file is empty");
    m_size = static_cast<size_t>(info.st_size);
    const int populate = options.prefault && !options.progress ? MAP_POPULATE : 0;
    void* address = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE | populate, fd.get(), 0);
    if (address == MAP_FAILED) fail(path, "cannot map file into memory", errno);
    m_data = static_cast<const std::byte*>(address);
    if (!options.prefault) return;
    ::madvise(address, m_size, MADV_WILLNEED);
    // MAP_POPULATE is best effort: touch one byte per page so every page is resident now,
    // reporting progress about every percent.
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t report_every = std::max(page, m_size / 100 / page * page);
    volatile std::byte sink{};
    for (size_t offset = 0; offset < m_size; offset += page) {
        sink = m_data[offset];
        if (options.progress && offset % report_every == 0 && !options.progress(offset, m_size)) {
            ::munmap(address, m_size);
            m_data = nullptr;
            throw LoadCancelled(path.string() + ": loading was cancelled");
        }
    }
    (void)sink;
    if (options.progress) options.progress(m_size, m_size);
}

MappedFile::~MappedFile() {
    if (m_data != nullptr) ::munmap(const_cast<std::byte*>(m_data), m_size);
}

}  // namespace hearth
