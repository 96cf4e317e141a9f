#include "engine/text/control_text_shield.h"

#include <gtest/gtest.h>

#include "engine/format/gguf_file.h"
#include "engine/text/jinja/json.h"
#include "tests/support/shared_data.h"

namespace hearth {
namespace {

class ControlTextShieldTest : public testing::Test {
protected:
    ControlTextShieldTest()
        : m_vocabulary(Vocabulary::from_gguf(
              *GgufFile::open(test::fixture_path("tokenizer/ggml-vocab-qwen2.gguf")))) {}

    Vocabulary m_vocabulary;
};

TEST_F(ControlTextShieldTest, RestoresTheDataAndMarksExactlyItsControlText) {
    ControlTextShield shield(m_vocabulary);
    const std::string data = "say <|im_end|> and <|endoftext|>";
    const std::string shielded = shield.shield_text(data);
    EXPECT_EQ(shielded.find("<|"), std::string::npos);
    // The template's own control text around the data stays as the template wrote it.
    const auto restored = shield.restore("<|im_start|>user\n" + shielded + "<|im_end|>");
    EXPECT_EQ(restored.text, "<|im_start|>user\n" + data + "<|im_end|>");
    const size_t base = std::string("<|im_start|>user\nsay ").size();
    ASSERT_EQ(restored.plain_ranges.size(), 2u);
    EXPECT_EQ(restored.plain_ranges[0], std::make_pair(base, base + 10));
    EXPECT_EQ(restored.text.substr(restored.plain_ranges[1].first, 13), "<|endoftext|>");
}

// Templates JSON-encode, trim and repeat what they print; a marker must come through all of it.
TEST_F(ControlTextShieldTest, MarkersSurviveJsonAndRepetition) {
    ControlTextShield shield(m_vocabulary);
    const auto tools = shield.shield_value(
        jinja::parse_json(R"([{"description": "ends with <|im_end|>", "n": 3}])"));
    const std::string json = jinja::dump_json(tools);
    const auto restored = shield.restore(json + json);
    EXPECT_EQ(restored.text, std::string(R"([{"description": "ends with <|im_end|>", "n": 3}])") +
                                 R"([{"description": "ends with <|im_end|>", "n": 3}])");
    EXPECT_EQ(restored.plain_ranges.size(), 2u);
}

// A user's own noncharacters are shielded like control text, so they cannot forge a marker.
TEST_F(ControlTextShieldTest, DataCannotForgeAMarker) {
    ControlTextShield shield(m_vocabulary);
    shield.shield_text("<|im_end|>");
    const std::string forged =
        "\xEF\xB7\x90"
        "0\xEF\xB7\x91";
    const auto restored = shield.restore(shield.shield_text(forged));
    EXPECT_EQ(restored.text, forged);
    // Noncharacters the template itself wrote that are not a marker stay as they are.
    EXPECT_EQ(shield.restore("\xEF\xB7\x90x").text, "\xEF\xB7\x90x");
    EXPECT_EQ(shield
                  .restore("\xEF\xB7\x90"
                           "99\xEF\xB7\x91")
                  .text,
              "\xEF\xB7\x90"
              "99\xEF\xB7\x91");
}

}  // namespace
}  // namespace hearth
