#include "ui/settings_dialog.h"

#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabBar>
#include <QTest>

namespace hearth::ui {
namespace {

TEST(SettingsDialog, ReturnsWhatWasEntered) {
    SettingsDialog dialog(core::ConversationSettings{}, core::GlobalSettings{}, {});
    dialog.findChild<QPlainTextEdit*>("systemPrompt")->setPlainText("Be brief.");
    dialog.findChild<QDoubleSpinBox*>("temperature")->setValue(0.0);
    dialog.findChild<QSpinBox*>("topK")->setValue(12);
    dialog.findChild<QLineEdit*>("seed")->setText("42");
    dialog.findChild<QSpinBox*>("contextLength")->setValue(1024);
    auto* overflow = dialog.findChild<QComboBox*>("overflow");
    overflow->setCurrentIndex(overflow->findData(static_cast<int>(OverflowPolicy::TruncateMiddle)));
    dialog.findChild<QCheckBox*>("jsonMode")->setChecked(true);
    dialog.findChild<QSpinBox*>("threads")->setValue(3);
    auto* draft = dialog.findChild<QLineEdit*>("draftModel");
    EXPECT_FALSE(draft->isEnabled()) << "a draft model only matters to speculative decoding";
    dialog.findChild<QCheckBox*>("speculative")->setChecked(true);
    EXPECT_TRUE(draft->isEnabled());
    draft->setText(" /models/qwen3-0.6b.gguf ");
    auto* theme = dialog.findChild<QComboBox*>("theme");
    theme->setCurrentIndex(theme->findData(static_cast<int>(core::Theme::Dark)));
    EXPECT_TRUE(dialog.valid());
    const auto conversation = dialog.conversation();
    EXPECT_EQ(conversation.system_prompt, "Be brief.");
    EXPECT_TRUE(conversation.sampler.greedy());
    EXPECT_EQ(conversation.sampler.top_k, 12);
    EXPECT_FALSE(conversation.random_seed);
    EXPECT_EQ(conversation.sampler.seed, 42u);
    EXPECT_EQ(conversation.context_length, 1024);
    EXPECT_EQ(conversation.overflow, OverflowPolicy::TruncateMiddle);
    EXPECT_TRUE(conversation.json_mode);
    const auto global = dialog.global();
    EXPECT_EQ(global.threads, 3);
    EXPECT_TRUE(global.speculative);
    EXPECT_EQ(global.draft_model, "/models/qwen3-0.6b.gguf");
    EXPECT_EQ(global.theme, core::Theme::Dark);
}

// The backend choice lists automatic, the CPU and every Vulkan device present (lavapipe here),
// keeps a device that has gone missing, and returns what was picked.
TEST(SettingsDialog, OffersEveryVulkanDeviceAsABackend) {
    core::GlobalSettings global;
    EXPECT_EQ(global.backend, "auto");
    SettingsDialog dialog(core::ConversationSettings{}, global, {});
    auto* backend = dialog.findChild<QComboBox*>("backend");
    ASSERT_NE(backend, nullptr);
    EXPECT_EQ(backend->currentData().toString(), "auto");
    EXPECT_GE(backend->findData("cpu"), 0);
    const int device = backend->findData("vulkan:0");
    ASSERT_GE(device, 0);
    EXPECT_TRUE(backend->itemText(device).contains("Vulkan device 0"));
    backend->setCurrentIndex(device);
    EXPECT_EQ(dialog.global().backend, "vulkan:0");

    global.backend = "vulkan:7";
    SettingsDialog later(core::ConversationSettings{}, global, {});
    auto* kept = later.findChild<QComboBox*>("backend");
    EXPECT_EQ(kept->currentData().toString(), "vulkan:7");
    EXPECT_TRUE(kept->currentText().contains("not present"));
}

// The KV cache type goes in and out in the engine's words; a hand-edited value shows F16, the
// cache the engine then keeps.
TEST(SettingsDialog, ChoosesTheKvCacheType) {
    // What the dialog returns for a stored value, after picking `picked` (if any).
    const auto returned = [](const QString& stored, const QString& picked) {
        core::GlobalSettings global;
        global.kv_cache = stored;
        SettingsDialog dialog(core::ConversationSettings{}, global, {});
        auto* kv_cache = dialog.findChild<QComboBox*>("kvCache");
        if (!picked.isEmpty()) kv_cache->setCurrentIndex(kv_cache->findData(picked));
        return dialog.global().kv_cache;
    };
    EXPECT_EQ(core::GlobalSettings{}.kv_cache, "f16");
    EXPECT_EQ(returned("f16", ""), "f16");
    EXPECT_EQ(returned("f16", "q8_0"), "q8_0");
    EXPECT_EQ(returned("q8_0", ""), "q8_0");
    EXPECT_EQ(returned("q8_0", "f16"), "f16");
    EXPECT_EQ(returned("q4", ""), "f16");
}

// Model default, on or off, offered when the model's template reads enable_thinking.
TEST(SettingsDialog, OffersTheThinkingChoiceWhenTheTemplateHasASwitch) {
    core::ConversationSettings settings;
    SettingsDialog dialog(settings, core::GlobalSettings{}, {.thinking = true});
    auto* thinking = dialog.findChild<QComboBox*>("thinking");
    ASSERT_NE(thinking, nullptr);
    EXPECT_TRUE(thinking->isEnabled());
    EXPECT_EQ(thinking->count(), 3);
    EXPECT_FALSE(dialog.conversation().enable_thinking.has_value());  // the model's default
    thinking->setCurrentIndex(thinking->findData(0));
    EXPECT_EQ(dialog.conversation().enable_thinking, false);
    thinking->setCurrentIndex(thinking->findData(1));
    EXPECT_EQ(dialog.conversation().enable_thinking, true);

    settings.enable_thinking = false;
    SettingsDialog stored(settings, core::GlobalSettings{}, {.thinking = true});
    EXPECT_EQ(stored.findChild<QComboBox*>("thinking")->currentData().toInt(), 0);
    EXPECT_EQ(stored.conversation().enable_thinking, false);
}

// Without a switch the choice is shown but disabled, says why, and is kept as it was: another
// model may read it.
TEST(SettingsDialog, TheThinkingChoiceIsDisabledWithTheReasonWhenTheTemplateHasNoSwitch) {
    core::ConversationSettings settings;
    settings.enable_thinking = false;
    SettingsDialog dialog(settings, core::GlobalSettings{}, {});
    auto* thinking = dialog.findChild<QComboBox*>("thinking");
    ASSERT_NE(thinking, nullptr);
    EXPECT_FALSE(thinking->isEnabled());
    EXPECT_TRUE(thinking->toolTip().contains("enable_thinking"))
        << thinking->toolTip().toStdString();
    EXPECT_TRUE(thinking->toolTip().contains("no thinking switch"));
    EXPECT_EQ(dialog.conversation().enable_thinking, false);
}

// gpt-oss's reasoning_effort: offered when the template reads it, else shown disabled with
// the reason and kept as it was.
TEST(SettingsDialog, OffersTheReasoningEffortWhenTheTemplateReadsIt) {
    core::ConversationSettings settings;
    SettingsDialog dialog(settings, core::GlobalSettings{}, {.reasoning_effort = true});
    auto* effort = dialog.findChild<QComboBox*>("reasoningEffort");
    ASSERT_NE(effort, nullptr);
    EXPECT_TRUE(effort->isEnabled());
    EXPECT_FALSE(dialog.findChild<QComboBox*>("thinking")->isEnabled());
    EXPECT_EQ(effort->count(), 4);
    EXPECT_EQ(dialog.conversation().reasoning_effort, "");  // the model's default
    effort->setCurrentIndex(effort->findData(QStringLiteral("high")));
    EXPECT_EQ(dialog.conversation().reasoning_effort, "high");

    settings.reasoning_effort = "low";
    SettingsDialog without(settings, core::GlobalSettings{}, {});
    auto* disabled = without.findChild<QComboBox*>("reasoningEffort");
    EXPECT_FALSE(disabled->isEnabled());
    EXPECT_TRUE(disabled->toolTip().contains("reasoning_effort"));
    EXPECT_EQ(without.conversation().reasoning_effort, "low");
}

TEST(SettingsDialog, RefusesInvalidValuesBeforeTheyReachTheEngine) {
    SettingsDialog dialog(core::ConversationSettings{}, core::GlobalSettings{}, {});
    auto* seed = dialog.findChild<QLineEdit*>("seed");
    QTest::keyClicks(seed, "12ab");  // letters never get in
    EXPECT_EQ(seed->text(), "12");
    seed->clear();
    QTest::keyClicks(seed, "1844674407370955161599");  // past 64 bits: the field stops at 19
    EXPECT_EQ(seed->text(), "1844674407370955161");
    seed->setText("9999999999999999999");  // the most digits a seed may have
    EXPECT_TRUE(dialog.valid());
    dialog.findChild<QDoubleSpinBox*>("topP")->setValue(0.0);  // would keep no token
    EXPECT_FALSE(dialog.valid());
    dialog.findChild<QDoubleSpinBox*>("topP")->setValue(0.9);
    dialog.findChild<QSpinBox*>("contextLength")->setValue(10);
    EXPECT_FALSE(dialog.valid());
    dialog.findChild<QSpinBox*>("contextLength")->setValue(0);  // the model's default
    EXPECT_TRUE(dialog.valid());
    // Ranges stop the rest: a negative temperature or top-k cannot be entered.
    auto* temperature = dialog.findChild<QDoubleSpinBox*>("temperature");
    temperature->setValue(-1.0);
    EXPECT_EQ(temperature->value(), 0.0);
    EXPECT_GT(dialog.findChild<QDoubleSpinBox*>("repeatPenalty")->minimum(), 0.0);
}

// Every control of every page says in plain words what it does ("Tokens per hand-off" had no
// word of explanation), including while a value is refused.
TEST(SettingsDialog, EveryControlHasATooltip) {
    core::ServerStatus server;
    SettingsDialog dialog(core::ConversationSettings{}, core::GlobalSettings{},
                          {.thinking = true, .reasoning_effort = true}, &server);
    dialog.findChild<QLineEdit*>("seed")->setText("1");          // valid: its own tooltip
    dialog.findChild<QSpinBox*>("contextLength")->setValue(10);  // refused: the reason and it
    int controls = 0;
    for (QWidget* widget : dialog.findChildren<QWidget*>()) {
        const bool input =
            qobject_cast<QAbstractButton*>(widget) || qobject_cast<QComboBox*>(widget) ||
            qobject_cast<QAbstractSpinBox*>(widget) || qobject_cast<QLineEdit*>(widget) ||
            qobject_cast<QPlainTextEdit*>(widget);
        // Parts of another control (a spin box's line edit, a tab bar's scroll buttons), and
        // OK and Cancel, which say what they do.
        const bool part = qobject_cast<QAbstractSpinBox*>(widget->parentWidget()) ||
                          qobject_cast<QComboBox*>(widget->parentWidget()) ||
                          qobject_cast<QTabBar*>(widget->parentWidget()) ||
                          qobject_cast<QDialogButtonBox*>(widget->parentWidget());
        if (!input || part) continue;
        ++controls;
        EXPECT_FALSE(widget->toolTip().trimmed().isEmpty())
            << widget->metaObject()->className() << " " << widget->objectName().toStdString();
    }
    EXPECT_GE(controls, 25);
    EXPECT_TRUE(dialog.findChild<QSpinBox*>("chunkTokens")->toolTip().contains("hands them"));
    EXPECT_TRUE(dialog.findChild<QSpinBox*>("contextLength")->toolTip().startsWith("At least 64"));
    EXPECT_TRUE(dialog.findChild<QSpinBox*>("contextLength")->toolTip().contains("memory"));
}

// Presets: save the system prompt under a name, pick one to fill the prompt, edit one (save
// under its name again), delete one; and choose the one new chats start with. They come back
// in the global settings.
TEST(SettingsDialog, SystemPromptPresetsAreSavedPickedEditedAndDeleted) {
    core::GlobalSettings global;
    core::save_preset(global.system_prompts, "Brief", "Be brief.");
    SettingsDialog dialog(core::ConversationSettings{}, global, {});
    auto* prompt = dialog.findChild<QPlainTextEdit*>("systemPrompt");
    auto* pick = dialog.findChild<QComboBox*>("systemPromptPreset");
    auto* name = dialog.findChild<QLineEdit*>("presetName");
    auto* save = dialog.findChild<QPushButton*>("savePreset");
    auto* remove = dialog.findChild<QPushButton*>("deletePreset");
    auto* new_chat = dialog.findChild<QComboBox*>("newChatPrompt");
    ASSERT_TRUE(pick && name && save && remove && new_chat);
    EXPECT_EQ(new_chat->currentText(), "No system prompt");

    prompt->setPlainText("Talk like a pirate.");
    QTest::keyClicks(name, "Pirate");
    QTest::mouseClick(save, Qt::LeftButton);
    EXPECT_EQ(pick->currentText(), "Pirate");
    EXPECT_EQ(new_chat->findText("Pirate"), 2);

    // Pick "Brief": the prompt and the name field take it; edit it and save it again.
    pick->setCurrentIndex(pick->findText("Brief"));
    emit pick->activated(pick->currentIndex());
    EXPECT_EQ(prompt->toPlainText(), "Be brief.");
    EXPECT_EQ(name->text(), "Brief");
    prompt->setPlainText("Be very brief.");
    QTest::mouseClick(save, Qt::LeftButton);
    new_chat->setCurrentIndex(new_chat->findText("Pirate"));
    auto saved = dialog.global();
    ASSERT_EQ(saved.system_prompts.size(), 2u);
    EXPECT_EQ(saved.system_prompts[0], (core::SystemPromptPreset{"Brief", "Be very brief."}));
    EXPECT_EQ(saved.system_prompts[1], (core::SystemPromptPreset{"Pirate", "Talk like a pirate."}));
    EXPECT_EQ(saved.new_chat_prompt, "Pirate");
    EXPECT_EQ(dialog.conversation().system_prompt, "Be very brief.");

    // Deleting the preset new chats start with leaves them with none.
    name->setText("Pirate");
    QTest::mouseClick(remove, Qt::LeftButton);
    saved = dialog.global();
    ASSERT_EQ(saved.system_prompts.size(), 1u);
    EXPECT_EQ(saved.system_prompts[0].name, "Brief");
    EXPECT_EQ(saved.new_chat_prompt, "");
    EXPECT_EQ(new_chat->currentText(), "No system prompt");
}

}  // namespace
}  // namespace hearth::ui
