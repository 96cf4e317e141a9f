// The model picker on the real shared files: one row per catalog entry, with its metadata.
#include "ui/model_picker.h"

#include <gtest/gtest.h>

#include <QTableWidget>

#include <map>
#include <optional>

#include "app/core/model_catalog.h"
#include "tests/support/shared_data.h"

namespace hearth::ui {
namespace {

// The text in `column` of the row listing `file`, or nothing where no row lists it.
std::optional<QString> cell(const QTableWidget& table, const QString& file, int column) {
    for (int row = 0; row < table.rowCount(); ++row) {
        if (table.item(row, 0)->toolTip().endsWith("/" + file))
            return table.item(row, column)->text();
    }
    return std::nullopt;
}

TEST(ModelPicker, ShowsEveryEntryOfTheCatalog) {
    const auto folder = test::shared_dir() / "models";
    ModelPicker picker([&] { return core::scan_models({folder}, {}); }, 2048);
    EXPECT_EQ(static_cast<size_t>(picker.row_count()), picker.entries().size());
    auto* table = picker.findChild<QTableWidget*>("models");
    // Each family by its usual name, with its parameters and memory.
    const std::map<QString, QString> families{
        {"stories260K.gguf", "Llama"},        {"synth-qwen3-256.gguf", "Qwen3"},
        {"synth-gemma2-256.gguf", "Gemma 2"}, {"synth-gemma3-256-Q4_K_M.gguf", "Gemma 3"},
        {"synth-phi3-256.gguf", "Phi-3"},     {"synth-smollm3-256.gguf", "SmolLM3"}};
    for (const auto& [file, family] : families) {
        const auto architecture = cell(*table, file, 1);
        ASSERT_TRUE(architecture.has_value()) << file.toStdString() << " is not listed";
        EXPECT_EQ(*architecture, family) << file.toStdString();
        EXPECT_FALSE(cell(*table, file, 2)->isEmpty());  // parameters
        EXPECT_FALSE(cell(*table, file, 7)->isEmpty());  // memory
    }
}

// The quantisation column says what a mix is made of, by share of the parameters.
TEST(ModelPicker, ShowsTheQuantisationMixOfEachFile) {
    const auto folder = test::shared_dir() / "models";
    ModelPicker picker([&] { return core::scan_models({folder}, {}); }, 2048);
    auto* table = picker.findChild<QTableWidget*>("models");
    const std::map<QString, QString> mixes{
        {"synth-llama-256-Q3_K_M.gguf", "Q3_K_M: Q3_K 61%, Q4_K 29%, Q6_K 7%, Q5_K 4%"},
        {"synth-llama-256-IQ4_XS-mix.gguf", "IQ4_XS: IQ4_XS 93%, Q6_K 7%"},
        {"synth-llama-256-Q2_K.gguf", "Q2_K"}};
    for (const auto& [file, mix] : mixes)
        EXPECT_EQ(cell(*table, file, 3), mix) << file.toStdString();
}

}  // namespace
}  // namespace hearth::ui
