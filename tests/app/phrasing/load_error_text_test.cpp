// The model list's one-line reason, from the engine's real errors on the real shared files.
#include "app/phrasing/load_error_text.h"

#include <gtest/gtest.h>

#include "engine/model/model_info.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "tests/support/unsupported_files.h"

namespace hearth {
namespace {

// The phrased reason `read_model_info` gives for `path`, or nothing where it reads the file.
std::string phrased_refusal(const std::filesystem::path& path) {
    try {
        read_model_info(path);
    } catch (const std::exception& error) {
        return load_error_text(error.what(), path.string());
    }
    return {};
}

TEST(LoadErrorText, EveryRefusedSharedFileSaysRefusedAndNamesWhatIsMissing) {
    for (const auto& entry : test::unsupported_files()) {
        if (entry.kind == test::MissingKind::TemplateFeature) continue;  // not a model file
        const auto path = test::model_path(std::string(entry.file));
        const std::string text = phrased_refusal(path);
        EXPECT_TRUE(text.starts_with("Refused: unsupported ")) << entry.file << ": " << text;
        EXPECT_TRUE(test::names_whole_word(text, entry.missing)) << entry.file << ": " << text;
        // The row already names the file, and the list of what Hearth runs is for the tooltip.
        EXPECT_EQ(text.find(path.string()), std::string::npos) << text;
        EXPECT_EQ(text.find("Hearth runs"), std::string::npos) << text;
    }
}

TEST(LoadErrorText, TheMixtureOfExpertsArchitectureSaysWhatKindOfModelItIs) {
    // Both files are listed as refused. A Hearth that runs them has no refusal to phrase: this
    // test then fails on purpose, as the list's own check does, and its cases move to files
    // still refused.
    ASSERT_NE(test::find_unsupported("synth-gpt-oss-256.gguf"), nullptr)
        << "Hearth runs synth-gpt-oss-256.gguf now";
    ASSERT_NE(test::find_unsupported("synth-gpt-oss-256-MXFP4_MOE.gguf"), nullptr)
        << "Hearth runs synth-gpt-oss-256-MXFP4_MOE.gguf now";
    EXPECT_EQ(phrased_refusal(test::model_path("synth-gpt-oss-256.gguf")),
              "Refused: unsupported architecture gpt-oss (a mixture-of-experts model)");
    EXPECT_EQ(phrased_refusal(test::model_path("synth-gpt-oss-256-MXFP4_MOE.gguf")),
              "Refused: unsupported weight type MXFP4");
}

TEST(LoadErrorText, ACutFileIsUnreadableWithTheEnginesReason) {
    const test::TempDirectory directory;
    auto bytes = test::read_bytes(test::model_path("stories260K.gguf"));
    bytes.resize(1000);
    const auto path = directory.write("cut.gguf", bytes);
    const std::string text = phrased_refusal(path);
    EXPECT_TRUE(text.starts_with("Unreadable: ")) << text;
    EXPECT_EQ(text.find(path.string()), std::string::npos) << text;
    EXPECT_GT(text.size(), std::string("Unreadable: ").size() + 10) << text;
}

}  // namespace
}  // namespace hearth
