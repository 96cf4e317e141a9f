// Benchmark buffers on transparent huge pages where the kernel offers them, as a loaded model's
// weights are (engine/format/mapped_file.h): the hardware prefetchers stop at every 4 KiB page
// boundary, so a buffer on small pages would measure a layout decode never reads from.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hearth::bench {

// `count` value-initialised elements, advised for huge pages before the first touch (from the
// first 2 MiB boundary inside the buffer on).
template <typename T>
std::vector<T> huge_page_vector(size_t count) {
    constexpr uintptr_t kHugePage = 2 << 20;
    std::vector<T> buffer;
    buffer.reserve(count + kHugePage / sizeof(T));
    const uintptr_t huge =
        (reinterpret_cast<uintptr_t>(buffer.data()) + kHugePage - 1) & ~(kHugePage - 1);
    ::madvise(reinterpret_cast<void*>(huge), count * sizeof(T), MADV_HUGEPAGE);
    buffer.resize(count);
    return buffer;
}

}  // namespace hearth::bench
