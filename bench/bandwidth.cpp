// hearth-bandwidth: how fast this machine streams memory into the cores, with the same number
// of threads the engine uses; the denominator of the decode roofline (bytes per token / this).
// The buffer is in transparent huge pages where the kernel offers them, as a loaded model's
// weights are (MappedFile), so the roofline is what the weights' own pages allow.
//   hearth-bandwidth [-t THREADS] [--mib SIZE]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "bench/huge_pages.h"
#include "engine/compute/thread_pool.h"

int main(int argc, char** argv) {
    int threads = 0;
    size_t mebibytes = 1024;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::string(argv[i]) == "-t") threads = std::stoi(argv[i + 1]);
        if (std::string(argv[i]) == "--mib") mebibytes = std::stoul(argv[i + 1]);
    }
    hearth::ThreadPool pool(threads);
    const size_t words = mebibytes * 1024 * 1024 / sizeof(uint64_t);
    std::vector<uint64_t> buffer = hearth::bench::huge_page_vector<uint64_t>(words);
    pool.parallel_for(words, 4096, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) buffer[i] = i * 0x9e3779b97f4a7c15ull;
    });
    std::vector<double> rates;
    std::vector<uint64_t> sums(static_cast<size_t>(pool.size()) * 8);
    for (int round = 0; round < 9; ++round) {
        const auto start = std::chrono::steady_clock::now();
        pool.parallel_for(words, 4096, [&](size_t begin, size_t end) {
            uint64_t a = 0, b = 0, c = 0, d = 0;  // four chains keep the loads in flight
            size_t i = begin;
            for (; i + 4 <= end; i += 4)
                a += buffer[i], b += buffer[i + 1], c += buffer[i + 2], d += buffer[i + 3];
            for (; i < end; ++i) a += buffer[i];
            sums[(begin * 8 / std::max<size_t>(words, 1)) % sums.size()] += a + b + c + d;
        });
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        rates.push_back(static_cast<double>(words * sizeof(uint64_t)) / seconds / 1e9);
    }
    std::sort(rates.begin(), rates.end());
    uint64_t checksum = 0;
    for (const auto s : sums) checksum ^= s;
    fmt::print(
        "read bandwidth, {} threads, {} MiB: median {:.1f} GB/s, best {:.1f} GB/s, worst {:.1f} "
        "GB/s (checksum {:x})\n",
        pool.size(), mebibytes, rates[rates.size() / 2], rates.back(), rates.front(),
        checksum & 0xfff);
    return 0;
}
