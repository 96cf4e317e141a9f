// The model picker on the real shared files: one row per catalog entry, with its metadata.
#include "ui/model_picker.h"

#include <gtest/gtest.h>

#include <QTableWidget>

#include "app/core/model_catalog.h"
#include "tests/support/shared_data.h"

namespace hearth::ui {
namespace {

TEST(ModelPicker, ShowsEveryEntryOfTheCatalog) {
    const auto folder = test::shared_dir() / "models";
    ModelPicker picker([&] { return core::scan_models({folder}, {}); }, 2048);
    EXPECT_EQ(static_cast<size_t>(picker.row_count()), picker.entries().size());
    auto* table = picker.findChild<QTableWidget*>("models");
    bool found = false;
    for (int row = 0; row < table->rowCount(); ++row) {
        if (table->item(row, 0)->toolTip().endsWith("stories260K.gguf")) {
            found = true;
            EXPECT_EQ(table->item(row, 1)->text(), "llama");
            EXPECT_FALSE(table->item(row, 7)->text().isEmpty());  // memory
        }
    }
    EXPECT_TRUE(found);
}

}  // namespace
}  // namespace hearth::ui
