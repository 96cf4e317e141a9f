#include "engine/format/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

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

bool transparent_huge_pages_offered() {
    std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    return std::getline(setting, line) && line.find("[never]") == std::string::npos &&
           line.find('[') != std::string::npos;
}

MappedFile::MappedFile(const std::filesystem::path& path, const MapOptions& options) {
    const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) fail(path, "cannot open", errno);
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) fail(path, "cannot read file size", errno);
    if (!S_ISREG(info.st_mode)) throw LoadError(path.string() + ": not a regular file");
    if (info.st_size == 0) throw LoadError(path.string() + ": the file is empty");
    m_size = static_cast<size_t>(info.st_size);
    const bool copy = options.prefault && options.huge_pages && transparent_huge_pages_offered();
    if (!copy || !copy_to_huge_pages(fd.get(), path, options)) map(fd.get(), path, options);
}

// Reads the file into anonymous memory aligned to 2 MiB and advised for huge pages; false
// (nothing kept) where the memory cannot be had, so that the caller maps the file instead.
bool MappedFile::copy_to_huge_pages(int fd, const std::filesystem::path& path,
                                    const MapOptions& options) {
    constexpr size_t kHugePage = size_t{2} << 20;
    const size_t length = (m_size + kHugePage - 1) / kHugePage * kHugePage + kHugePage;
    void* region =
        ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) return false;
    const auto release = [&] { ::munmap(region, length); };
    const auto start =
        (reinterpret_cast<uintptr_t>(region) + kHugePage - 1) / kHugePage * kHugePage;
    auto* copy = reinterpret_cast<std::byte*>(start);
    ::madvise(copy, length - (start - reinterpret_cast<uintptr_t>(region)), MADV_HUGEPAGE);
    // About every percent, as the map's pre-faulting reports.
    const size_t chunk = std::max<size_t>(size_t{64} << 10, m_size / 100);
    for (size_t done = 0; done < m_size;) {
        if (options.progress && !options.progress(done, m_size)) {
            release();
            throw LoadCancelled(path.string() + ": loading was cancelled");
        }
        const ssize_t got =
            ::pread(fd, copy + done, std::min(chunk, m_size - done), static_cast<off_t>(done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            const int error = errno;
            release();
            if (got == 0) throw LoadError(path.string() + ": the file got shorter while loading");
            fail(path, "cannot read", error);
        }
        done += static_cast<size_t>(got);
    }
    if (::mprotect(region, length, PROT_READ) != 0) {
        release();
        return false;
    }
    if (options.progress) options.progress(m_size, m_size);
    m_region = region;
    m_region_size = length;
    m_data = copy;
    m_copied = true;
    return true;
}

void MappedFile::map(int fd, const std::filesystem::path& path, const MapOptions& options) {
    const int populate = options.prefault && !options.progress ? MAP_POPULATE : 0;
    void* address = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE | populate, fd, 0);
    if (address == MAP_FAILED) fail(path, "cannot map file into memory", errno);
    m_region = address;
    m_region_size = m_size;
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
            m_region = nullptr;
            throw LoadCancelled(path.string() + ": loading was cancelled");
        }
    }
    (void)sink;
    if (options.progress) options.progress(m_size, m_size);
}

MappedFile::~MappedFile() {
    if (m_region != nullptr) ::munmap(m_region, m_region_size);
}

}  // namespace hearth
