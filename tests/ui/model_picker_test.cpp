// The model picker on the real shared files: one row per catalog entry, with its metadata.
#include "ui/model_picker.h"

#include <gtest/gtest.h>

#include <QTableWidget>

#include <map>

#include "app/core/model_catalog.h"
#include "tests/support/shared_data.h"

namespace hearth::ui {
namespace {

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
    size_t found = 0;
    for (int row = 0; row < table->rowCount(); ++row) {
        for (const auto& [file, family] : families) {
            if (!table->item(row, 0)->toolTip().endsWith("/" + file)) continue;
            ++found;
            EXPECT_EQ(table->item(row, 1)->text(), family) << file.toStdString();
            EXPECT_FALSE(table->item(row, 2)->text().isEmpty());  // parameters
            EXPECT_FALSE(table->item(row, 7)->text().isEmpty());  // memory
        }
    }
    EXPECT_EQ(found, families.size());
}

}  // namespace
}  // namespace hearth::ui
