#include "app/core/downloads/gguf_choices.h"

#include <gtest/gtest.h>

namespace hearth::downloads {
namespace {

HubFile file(const char* path, qint64 size) {
    return {path, size, {}, {}};
}

// Split parts are one model; other files are left out; each model has its quantisation.
TEST(GgufChoices, SplitPartsAreOneModelAndOtherFilesAreLeftOut) {
    const std::vector<HubFile> files = {
        file("README.md", 10),
        file("Qwen3-30B-Q8_0/Qwen3-30B-Q8_0-00002-of-00002.gguf", 200),
        file("Qwen3-30B-Q4_K_M.gguf", 50),
        file("Qwen3-30B-Q8_0/Qwen3-30B-Q8_0-00001-of-00002.gguf", 300),
        file("Qwen3-30B-IQ4_XS.gguf", 40),
        file("mmproj-F16.gguf", 5),
    };
    const auto choices = gguf_choices(files);
    ASSERT_EQ(choices.size(), 4u);
    const auto* split = find_choice(choices, "Qwen3-30B-Q8_0");
    ASSERT_NE(split, nullptr);
    EXPECT_TRUE(split->split());
    EXPECT_TRUE(split->complete());
    ASSERT_EQ(split->parts.size(), 2u);
    EXPECT_TRUE(split->parts[0].path.endsWith("00001-of-00002.gguf"));
    EXPECT_EQ(split->total_bytes(), 500);
    EXPECT_EQ(split->quantization, "Q8_0");
    // Any part's name or path picks the whole model.
    EXPECT_EQ(find_choice(choices, "Qwen3-30B-Q8_0-00002-of-00002.gguf"), split);
    const auto* single = find_choice(choices, "Qwen3-30B-Q4_K_M.gguf");
    ASSERT_NE(single, nullptr);
    EXPECT_FALSE(single->split());
    EXPECT_EQ(single->quantization, "Q4_K_M");
    EXPECT_EQ(find_choice(choices, "Qwen3-30B-IQ4_XS")->quantization, "IQ4_XS");
    EXPECT_EQ(find_choice(choices, "mmproj-F16.gguf")->quantization, "F16");
    EXPECT_EQ(find_choice(choices, "README.md"), nullptr);
}

TEST(GgufChoices, AMissingPartMakesTheModelIncomplete) {
    const auto choices = gguf_choices(
        {file("big-Q2_K-00001-of-00003.gguf", 1), file("big-Q2_K-00003-of-00003.gguf", 1)});
    ASSERT_EQ(choices.size(), 1u);
    EXPECT_EQ(choices[0].declared_parts, 3);
    EXPECT_FALSE(choices[0].complete());
}

TEST(GgufChoices, QuantisationLabelsAreReadFromNames) {
    EXPECT_EQ(quantization_in_name("Llama-3.2-1B-Instruct-Q4_K_M.gguf"), "Q4_K_M");
    EXPECT_EQ(quantization_in_name("gemma-2-2b-it.q8_0.gguf"), "Q8_0");
    EXPECT_EQ(quantization_in_name("phi-4-BF16.gguf"), "BF16");
    EXPECT_EQ(quantization_in_name("gpt-oss-20b-MXFP4.gguf"), "MXFP4");
    EXPECT_EQ(quantization_in_name("tinyllama.gguf"), "");
}

}  // namespace
}  // namespace hearth::downloads
