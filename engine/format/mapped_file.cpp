#include "engine/format/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

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

bool transparent_huge_pages_offered(std::string_view setting) {
    return setting.find('[') != std::string_view::npos &&
           setting.find("[never]") == std::string_view::npos;
}

bool transparent_huge_pages_offered() {
    std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string setting;
    return std::getline(file, setting) && transparent_huge_pages_offered(setting);
}

// A file read whole into anonymous memory aligned to 2 MiB and advised for huge pages.
class MappedFile::HugePageCopy final {
public:
    // Room for `size` bytes from a 2 MiB boundary on, advised for huge pages if `huge_pages`;
    // allocated() is false where the memory cannot be had.
    HugePageCopy(size_t size, bool huge_pages)
        : m_length((size + kHugePage - 1) / kHugePage * kHugePage + kHugePage),
          m_region(::mmap(nullptr, m_length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0)) {
        if (m_region == MAP_FAILED) return;
        const auto base = reinterpret_cast<uintptr_t>(m_region);
        const auto start = (base + kHugePage - 1) / kHugePage * kHugePage;
        m_data = reinterpret_cast<std::byte*>(start);
        if (huge_pages) ::madvise(m_data, m_length - (start - base), MADV_HUGEPAGE);
    }
    ~HugePageCopy() {
        if (allocated()) ::munmap(m_region, m_length);
    }
    HugePageCopy(const HugePageCopy&) = delete;
    HugePageCopy& operator=(const HugePageCopy&) = delete;

    // The file's `size` bytes read into a new copy (advised for huge pages if `huge_pages`),
    // rewritten by options.rewrite if any, then made read-only; null where the memory cannot be
    // had (the caller then maps the file).
    static std::shared_ptr<const HugePageCopy> read(int fd, size_t size,
                                                    const std::filesystem::path& path,
                                                    const MapOptions& options, bool huge_pages) {
        const auto copy = std::make_shared<HugePageCopy>(size, huge_pages);
        if (!copy->allocated()) return nullptr;
        // About every percent, as the map's pre-faulting reports.
        const size_t chunk = std::max<size_t>(size_t{64} << 10, size / 100);
        for (size_t done = 0; done < size;) {
            if (options.progress && !options.progress(done, size)) {
                throw LoadCancelled(path.string() + ": loading was cancelled");
            }
            const ssize_t got = ::pread(fd, copy->m_data + done, std::min(chunk, size - done),
                                        static_cast<off_t>(done));
            if (got < 0 && errno == EINTR) continue;
            if (got == 0) throw LoadError(path.string() + ": the file got shorter while loading");
            if (got < 0) fail(path, "cannot read", errno);
            done += static_cast<size_t>(got);
        }
        if (options.rewrite) {
            options.rewrite->apply({copy->m_data, size}, path);
            copy->m_layout = options.rewrite->layout;
        }
        if (::mprotect(copy->m_region, copy->m_length, PROT_READ) != 0) return nullptr;
        return copy;
    }

    bool allocated() const { return m_region != MAP_FAILED; }
    const std::byte* data() const { return m_data; }
    const std::string& layout() const { return m_layout; }

private:
    static constexpr size_t kHugePage = size_t{2} << 20;

    size_t m_length;
    void* m_region;
    std::byte* m_data = nullptr;
    std::string m_layout;
};

namespace {

// A file as it was when read (the same device, inode, size and change time) in one layout.
using FileIdentity = std::tuple<dev_t, ino_t, off_t, time_t, long, std::string>;

FileIdentity identity_of(const struct stat& info, const MapOptions& options) {
    return {info.st_dev,          info.st_ino,
            info.st_size,         info.st_mtim.tv_sec,
            info.st_mtim.tv_nsec, options.rewrite ? options.rewrite->layout : std::string()};
}

// The copies alive in this process, so that a second load of an unchanged file shares the
// first's bytes as a second map of it would share its pages: the one process-wide table in the
// engine, standing in for the page cache that a map would have used.
class LiveCopies final {
public:
    std::shared_ptr<const MappedFile::HugePageCopy> find(const FileIdentity& file) {
        const std::lock_guard lock(m_mutex);
        const auto found = m_copies.find(file);
        return found == m_copies.end() ? nullptr : found->second.lock();
    }
    void add(const FileIdentity& file,
             const std::shared_ptr<const MappedFile::HugePageCopy>& copy) {
        const std::lock_guard lock(m_mutex);
        std::erase_if(m_copies, [](const auto& entry) { return entry.second.expired(); });
        m_copies[file] = copy;
    }

private:
    std::mutex m_mutex;
    std::map<FileIdentity, std::weak_ptr<const MappedFile::HugePageCopy>> m_copies;
};

LiveCopies& live_copies() {
    static LiveCopies copies;
    return copies;
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
    const bool huge_pages =
        options.prefault && options.huge_pages && transparent_huge_pages_offered();
    if (options.prefault && (options.rewrite || huge_pages)) {
        const FileIdentity file = identity_of(info, options);
        m_copy = live_copies().find(file);
        if (m_copy == nullptr &&
            (m_copy = HugePageCopy::read(fd.get(), m_size, path, options, huge_pages))) {
            live_copies().add(file, m_copy);
        }
        if (m_copy != nullptr) {
            if (options.progress) options.progress(m_size, m_size);
            m_data = m_copy->data();
            return;
        }
    }
    map(fd.get(), path, options);
}

void MappedFile::map(int fd, const std::filesystem::path& path, const MapOptions& options) {
    const int populate = options.prefault && !options.progress ? MAP_POPULATE : 0;
    void* address = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE | populate, fd, 0);
    if (address == MAP_FAILED) fail(path, "cannot map file into memory", errno);
    m_map = address;
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
            m_map = nullptr;
            throw LoadCancelled(path.string() + ": loading was cancelled");
        }
    }
    (void)sink;
    if (options.progress) options.progress(m_size, m_size);
}

const std::string& MappedFile::layout() const {
    static const std::string file_layout;
    return m_copy != nullptr ? m_copy->layout() : file_layout;
}

MappedFile::~MappedFile() {
    if (m_map != nullptr) ::munmap(m_map, m_size);
}

}  // namespace hearth
