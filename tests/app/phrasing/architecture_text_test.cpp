#include "app/phrasing/architecture_text.h"

#include <gtest/gtest.h>

#include "engine/model/architecture.h"

namespace hearth {
namespace {

TEST(ArchitectureText, EveryFamilyHearthRunsHasItsUsualName) {
    for (const char* name :
         {"llama", "qwen2", "qwen3", "qwen3moe", "gemma2", "gemma3", "phi3", "smollm3"}) {
        ASSERT_TRUE(parse_architecture(name).has_value()) << name;
        EXPECT_NE(architecture_text(name), name) << name;
    }
    EXPECT_EQ(architecture_text("gemma3"), "Gemma 3");
    EXPECT_EQ(architecture_text("phi3"), "Phi-3");
    EXPECT_EQ(architecture_text("qwen3moe"), "Qwen3 MoE");
    // gpt-oss is written as its makers write it: the file's own name.
    EXPECT_EQ(architecture_text("gpt-oss"), "gpt-oss");
    EXPECT_EQ(architecture_text("mamba"), "mamba");  // unknown: the file's own name
}

}  // namespace
}  // namespace hearth
