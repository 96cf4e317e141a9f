#include "app/phrasing/model_text.h"

#include <gtest/gtest.h>

#include "tests/support/shared_data.h"
#include "tests/support/templated_model.h"

namespace hearth {
namespace {

// The bundled model's file names itself only "llama": its heading says what it is instead of
// "llama · llama", and that it continues text.
TEST(ModelText, TheBundledStoryModelSaysWhatItIsAndThatItContinuesText) {
    const ModelInfo info = read_model_info(test::model_path("stories260K.gguf"));
    ASSERT_FALSE(info.has_chat_template);
    EXPECT_EQ(model_heading_text(info, true),
              "Stories 260K, bundled with Hearth · Llama · 293K · F32");
    EXPECT_EQ(model_heading_text(info, false), "Llama · 293K · F32");
    EXPECT_NE(model_purpose_text(info, true).find("story model"), std::string::npos);
    EXPECT_NE(model_purpose_text(info, true)
                  .find("continues the text you write rather than "
                        "chatting"),
              std::string::npos);
    EXPECT_NE(model_purpose_text(info, false).find("No chat template"), std::string::npos);
}

// A mixture of experts says how much of it one token reads; a dense model has no "active".
TEST(ModelText, AMixtureOfExpertsSaysItsTotalAndActiveParameters) {
    const ModelInfo moe = read_model_info(test::model_path("synth-qwen3moe-256-Q4_K_M.gguf"));
    EXPECT_EQ(parameters_text(moe), "3M total, 2M active");
    EXPECT_EQ(model_heading_text(moe, false),
              "synth-qwen3moe-256 · Qwen3 MoE · 3M total, 2M active · Q4_K_M");
    ModelInfo large = moe;
    large.parameters = 30'532'122'624;
    large.active_parameters = 3'335'000'000;
    EXPECT_EQ(parameters_text(large), "30.5B total, 3.3B active");
    const ModelInfo dense = read_model_info(test::model_path("synth-qwen3-256-Q4_K_M.gguf"));
    EXPECT_EQ(parameters_text(dense), parameter_count_text(dense.parameters));
    EXPECT_EQ(parameters_text(dense).find("active"), std::string::npos);
}

TEST(ModelText, AModelWithAChatTemplateNeedsNoPurpose) {
    const test::TempDirectory directory;
    const ModelInfo info = read_model_info(
        test::model_with_template(directory, "stories260K.gguf", test::fixture_template("chatml")));
    ASSERT_TRUE(info.has_chat_template);
    EXPECT_EQ(model_purpose_text(info, false), "");
    const std::string welcome = welcome_text(&info, false, {.models_folder = "/data/models"});
    EXPECT_NE(welcome.find("Write a message below"), std::string::npos) << welcome;
    EXPECT_EQ(welcome.find("continues"), std::string::npos) << welcome;
}

// What the model is, and how to get another: the picker and the folder the app reads.
TEST(ModelText, TheWelcomeNamesTheModelThePickerAndTheModelsFolder) {
    const ModelInfo info = read_model_info(test::model_path("stories260K.gguf"));
    const std::string welcome = welcome_text(&info, true, {.models_folder = "/data/models"});
    EXPECT_EQ(welcome.rfind("Welcome to Hearth. The model loaded is Stories 260K, bundled with "
                            "Hearth. A tiny story model",
                            0),
              0u)
        << welcome;
    EXPECT_NE(welcome.find("Models…"), std::string::npos);
    EXPECT_NE(welcome.find("/data/models"), std::string::npos);
    const std::string none = welcome_text(nullptr, false, {.models_folder = "/data/models"});
    EXPECT_EQ(none.rfind("Welcome to Hearth. No model is loaded yet.", 0), 0u) << none;
    EXPECT_NE(none.find("/data/models"), std::string::npos);
}

}  // namespace
}  // namespace hearth
