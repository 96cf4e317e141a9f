#include "bench/bench_options.h"

#include <gtest/gtest.h>

namespace hearth::bench {
namespace {

BenchOptions parse(std::vector<std::string> words) {
    words.insert(words.begin(), "hearth-bench");
    std::vector<char*> argv;
    for (auto& word : words) argv.push_back(word.data());
    return parse_bench_options(static_cast<int>(argv.size()), argv.data());
}

TEST(BenchOptions, ParsesTheDocumentedCommandLine) {
    const auto options = parse({"-m", "m.gguf", "-p", "64,512,1024", "-n", "32", "-d", "2048", "-r",
                                "7", "-t", "2", "--json"});
    EXPECT_EQ(options.model_path, "m.gguf");
    EXPECT_EQ(options.prompt_sizes, (std::vector<int>{64, 512, 1024}));
    EXPECT_EQ(options.generate, 32);
    EXPECT_EQ(options.depth, 2048);
    EXPECT_EQ(parse({"-m", "x"}).depth, 0);
    EXPECT_EQ(options.repetitions, 7);
    EXPECT_EQ(options.threads, 2);
    EXPECT_TRUE(options.json);
    EXPECT_EQ(parse({"-m", "x"}).prompt_sizes, (std::vector<int>{64, 512}));
    const auto gpu = parse({"-m", "x", "--backend", "vulkan", "--device", "1"});
    EXPECT_EQ(gpu.backend, "vulkan");
    EXPECT_EQ(gpu.device, 1u);
    EXPECT_FALSE(parse({"-m", "x"}).device.has_value());
    EXPECT_EQ(parse({"-m", "x", "--isa", "avx2"}).isa, "avx2");
    EXPECT_FALSE(parse({"-m", "x"}).file_layout);
    EXPECT_TRUE(parse({"-m", "x", "--file-layout"}).file_layout);
    EXPECT_EQ(parse({"-m", "x"}).kv_cache, KvCacheType::F16);
    EXPECT_EQ(parse({"-m", "x", "-d", "2048", "--kv-type", "q8_0"}).kv_cache, KvCacheType::Q8_0);
}

TEST(BenchOptions, RefusesBadInput) {
    EXPECT_THROW(parse({}), std::invalid_argument);
    EXPECT_THROW(parse({"-m", "x", "-r", "0"}), std::invalid_argument);
    EXPECT_THROW(parse({"-m", "x", "-n", "many"}), std::invalid_argument);
    EXPECT_THROW(parse({"-m", "x", "-d", "-1"}), std::invalid_argument);
    EXPECT_THROW(parse({"-m", "x", "--frobnicate"}), std::invalid_argument);
    EXPECT_THROW(parse({"-m", "x", "--kv-type", "q4"}), std::invalid_argument);
}

}  // namespace
}  // namespace hearth::bench
