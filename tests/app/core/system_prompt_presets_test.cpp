#include "app/core/system_prompt_presets.h"

#include <gtest/gtest.h>

namespace hearth::core {
namespace {

// Saving under a name that exists edits that preset in its place; a new name goes last; a
// blank name saves nothing; deleting removes by name.
TEST(SystemPromptPresets, SaveEditsByNameAndDeleteRemoves) {
    std::vector<SystemPromptPreset> presets;
    save_preset(presets, "Brief", "Be brief.");
    save_preset(presets, " Pirate  ", "Talk like a pirate.");
    save_preset(presets, "   ", "Nothing");
    ASSERT_EQ(presets.size(), 2u);
    EXPECT_EQ(presets[1].name, "Pirate");
    save_preset(presets, "Brief", "Be very brief.");
    ASSERT_EQ(presets.size(), 2u);
    EXPECT_EQ(presets[0], (SystemPromptPreset{"Brief", "Be very brief."}));
    EXPECT_EQ(preset_text(presets, "Pirate"), "Talk like a pirate.");
    EXPECT_EQ(preset_text(presets, ""), "");
    EXPECT_EQ(preset_text(presets, "Missing"), "");
    delete_preset(presets, "Brief");
    ASSERT_EQ(presets.size(), 1u);
    EXPECT_EQ(presets[0].name, "Pirate");
}

}  // namespace
}  // namespace hearth::core
