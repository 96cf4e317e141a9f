// The model list's one-line reason, from the engine's real errors on the real shared files.
#include "app/phrasing/load_error_text.h"

#include <gtest/gtest.h>

#include <cstring>

#include "engine/format/gguf_writer.h"
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
    // Hearth runs the shared gpt-oss files: a header naming Mixtral, which it knows but does not
    // run, stands in for them.
    GgufWriter writer;
    writer.set("general.architecture", GgufValue(std::string("mixtral")));
    const test::TempDirectory directory;
    EXPECT_EQ(phrased_refusal(directory.write("mixtral.gguf", writer.serialize())),
              "Refused: unsupported architecture mixtral (a mixture-of-experts model)");
}

// No shared file has a weight type Hearth lacks any more: one is written here, a Q8_0 tensor
// whose type id is rewritten to IQ2_XXS (16), 12 bytes after the tensor's name.
TEST(LoadErrorText, AnUnsupportedWeightTypeIsNamed) {
    const std::string name = "blk.0.ffn_up.weight";
    GgufWriter writer;
    writer.add_tensor(name, TensorType::Q8_0, {32}, std::vector<std::byte>(34));
    auto bytes = writer.serialize();
    const auto* begin = reinterpret_cast<const char*>(bytes.data());
    const size_t type_at = std::string_view(begin, bytes.size()).find(name) + name.size() + 4 + 8;
    const uint32_t iq2_xxs = 16;
    std::memcpy(bytes.data() + type_at, &iq2_xxs, sizeof iq2_xxs);
    const test::TempDirectory directory;
    EXPECT_EQ(phrased_refusal(directory.write("iq2.gguf", bytes)),
              "Refused: unsupported weight type IQ2_XXS");
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
