// hearth-bench's command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/compute/kv_cache_type.h"

namespace hearth::bench {

struct BenchOptions {
    std::string model_path;
    std::vector<int> prompt_sizes{64, 512};  // -p
    int generate = 128;                      // -n
    int depth = 0;                           // -d: cached context before generation starts
    int repetitions = 5;                     // -r
    int threads = 0;                         // -t
    std::string backend = "cpu";
    std::string isa;                 // --isa (cpu): scalar, avx2, avx512-vnni; empty for the best
    bool file_layout = false;        // --file-layout (cpu): keep Q4_0 rows, not strips
    std::optional<uint32_t> device;  // --device N (vulkan)
    KvCacheType kv_cache = KvCacheType::F16;  // --kv-type f16|q8_0
    bool json = false;
    bool decode_paths = false;  // --decode-paths: greedy/sampled/JSON/speculative through Session
    std::string draft_path;     // --draft FILE: draft-model speculation's costs and gains
};

// Throws std::invalid_argument naming the bad option.
BenchOptions parse_bench_options(int argc, char** argv);

}  // namespace hearth::bench
