#include "engine/format/split_name.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

TEST(SplitName, ReadsGgufSplitNamesAndWritesThemBack) {
    const auto name = parse_split_name("/models/Qwen3-30B-Q4_K_M-00002-of-00010.gguf");
    ASSERT_TRUE(name);
    EXPECT_EQ(name->prefix, std::filesystem::path("/models/Qwen3-30B-Q4_K_M"));
    EXPECT_EQ(name->number, 2);
    EXPECT_EQ(name->count, 10);
    EXPECT_EQ(split_part_path(name->prefix, 1, 10),
              std::filesystem::path("/models/Qwen3-30B-Q4_K_M-00001-of-00010.gguf"));
}

TEST(SplitName, OtherNamesAreNotSplitParts) {
    for (const char* other :
         {"model.gguf", "-00001-of-00002.gguf", "m-0001-of-00002.gguf", "m-00003-of-00002.gguf",
          "m-00000-of-00002.gguf", "m-00001-of-00002.bin", "m-00001_of-00002.gguf",
          "m-0000a-of-00002.gguf"}) {
        EXPECT_FALSE(parse_split_name(other)) << other;
    }
}

}  // namespace
}  // namespace hearth
