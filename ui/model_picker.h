// Lists the GGUF files Hearth can find with what matters before loading one: architecture,
// size, quantisation, context, chat template, and the exact memory it needs at a context length.
#pragma once

#include <QDialog>

#include <functional>
#include <vector>

#include "app/core/model_catalog.h"
#include "engine/model/model_info.h"

class QSpinBox;
class QTableWidget;
class QPushButton;

namespace hearth::ui {

class ModelPicker final : public QDialog {
    Q_OBJECT

public:
    using Scan = std::function<std::vector<core::ModelEntry>()>;
    ModelPicker(Scan scan, int context_length, QWidget* parent = nullptr);

    QString selected_path() const;
    int row_count() const;
    const std::vector<core::ModelEntry>& entries() const { return m_entries; }
    void rescan();

signals:
    void addFolderRequested(const QString& folder);

private:
    void fill();
    void update_memory();

    Scan m_scan;
    std::vector<core::ModelEntry> m_entries;
    QTableWidget* m_table = nullptr;
    QSpinBox* m_context = nullptr;
    QPushButton* m_load = nullptr;
};

QString byte_size_text(uint64_t bytes);

}  // namespace hearth::ui
