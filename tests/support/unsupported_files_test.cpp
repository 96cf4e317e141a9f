// The list of shared files Hearth refuses stays true to ../shared: every entry names a file that
// exists, once. (Each test that iterates over shared files checks the refusals themselves.)
#include "tests/support/unsupported_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "tests/support/shared_data.h"

namespace hearth::test {
namespace {

TEST(UnsupportedFiles, EveryListedFileExistsInShared) {
    for (const auto& entry : unsupported_files()) {
        const std::string file(entry.file);
        const auto path = entry.kind == MissingKind::TemplateFeature
                              ? fixture_path("chat_templates/" + file)
                              : model_path(file);
        EXPECT_TRUE(std::filesystem::is_regular_file(path)) << path << " is listed but missing";
    }
}

TEST(UnsupportedFiles, EachFileIsListedOnce) {
    std::set<std::string_view> seen;
    for (const auto& entry : unsupported_files())
        EXPECT_TRUE(seen.insert(entry.file).second) << entry.file;
}

TEST(UnsupportedFiles, ARefusalMustNameTheMissingThingAsAWord) {
    EXPECT_TRUE(names_whole_word("architecture 'qwen3' is not supported", "qwen3"));
    EXPECT_FALSE(names_whole_word("architecture 'qwen3moe' is not supported", "qwen3"));
    EXPECT_TRUE(names_whole_word("has type Q3_K, which", "Q3_K"));
    EXPECT_FALSE(names_whole_word("has type Q3_K_M", "Q3_K"));
    EXPECT_TRUE(names_whole_word("the template uses {% macro %}", "macro"));
}

TEST(UnsupportedFiles, FixtureNamesMapToTheirModelFiles) {
    EXPECT_EQ(model_file_of_fixture("synth-llama-256-Q2_K.f32math"), "synth-llama-256-Q2_K.gguf");
    EXPECT_EQ(model_file_of_fixture("stories260K"), "stories260K.gguf");
}

}  // namespace
}  // namespace hearth::test
