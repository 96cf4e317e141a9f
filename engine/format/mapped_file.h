// A whole file's bytes, read-only, released on destruction: a private copy in transparent huge
// pages where the kernel offers them and the file is loaded whole (and wherever its bytes are to
// be rewritten, see ByteRewrite), else a memory map. Decode
// reads every weight once per token, and on 4 KiB pages the hardware prefetchers stop at every
// page boundary: one core streamed 24 GB/s from 4 KiB pages and 33 GB/s from 2 MiB ones here,
// and Qwen3-0.6B Q4_0 decoded 13-18% faster from the copy. The copy costs what the pre-faulted
// map did (the same resident bytes); only the page cache may hold the file a second time, and
// the kernel drops that first when memory runs short. Loads of the same unchanged file in one
// process share one copy, as they would share a map's pages (the app's chat engine and its
// in-app server hold the same model).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace hearth {

// A change made to a file's bytes once, as they are loaded into memory: repacking weights into
// the layout a CPU's kernels read fastest. The file on disk is never touched.
struct ByteRewrite {
    // Names the result. Loads in one process share a copy only when they ask for the same layout.
    std::string layout;
    // Rewrites `bytes` (the whole file, writable) in place; throws LoadError for a file it cannot
    // rewrite.
    std::function<void(std::span<std::byte> bytes, const std::filesystem::path& path)> apply;
};

struct MapOptions {
    // Pre-fault every page, so the first token of a generation pays no page faults. Off for
    // reading metadata only (the model picker), where only the header's pages are touched.
    bool prefault = true;
    // Told the bytes made resident so far while pre-faulting; returning false cancels the load
    // (LoadCancelled).
    std::function<bool(size_t done, size_t total)> progress;
    // With `prefault`: copy the file into transparent huge pages where the kernel offers them
    // (its setting is not "never" and it has the memory), else map it.
    bool huge_pages = true;
    // With `prefault`: load the file into a private copy (on huge pages where offered) and apply
    // this to it before it is made read-only. A load that maps the file (not pre-faulted, or no
    // memory for a copy) keeps the file's layout; MappedFile::layout() says which one it got.
    std::shared_ptr<const ByteRewrite> rewrite;
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
    // Whether the bytes are a private copy (advised for huge pages unless MapOptions::huge_pages
    // is off) rather than a map of the file.
    bool copied_to_huge_pages() const { return m_copy != nullptr; }
    // The ByteRewrite layout the bytes are in; empty for the file's own.
    const std::string& layout() const;

    class HugePageCopy;

private:
    void map(int fd, const std::filesystem::path& path, const MapOptions& options);

    const std::byte* m_data = nullptr;
    size_t m_size = 0;
    void* m_map = nullptr;  // the file's map, when not copied
    std::shared_ptr<const HugePageCopy> m_copy;
};

// Whether this kernel gives transparent huge pages to memory that asks for them (its setting,
// /sys/kernel/mm/transparent_hugepage/enabled, is "always" or "madvise").
bool transparent_huge_pages_offered();
// The same decision from a line of that file ("always [madvise] never" is offered).
bool transparent_huge_pages_offered(std::string_view setting);

}  // namespace hearth
