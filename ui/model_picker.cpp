#include "ui/model_picker.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/phrasing/architecture_text.h"
#include "app/phrasing/quantization_text.h"

namespace hearth::ui {
namespace {

enum Column {
    kName,
    kArchitecture,
    kParameters,
    kQuantization,
    kSize,
    kContext,
    kTemplate,
    kMemory,
    kColumns
};

}  // namespace

QString byte_size_text(uint64_t bytes) {
    if (bytes >= (uint64_t{1} << 30))
        return QStringLiteral("%1 GiB").arg(bytes / double(1 << 30), 0, 'f', 2);
    if (bytes >= (uint64_t{1} << 20))
        return QStringLiteral("%1 MiB").arg(bytes / double(1 << 20), 0, 'f', 1);
    return QStringLiteral("%1 KiB").arg(bytes / 1024.0, 0, 'f', 0);
}

ModelPicker::ModelPicker(Scan scan, int context_length, QWidget* parent)
    : QDialog(parent), m_scan(std::move(scan)) {
    setObjectName(QStringLiteral("modelPicker"));
    setWindowTitle(tr("Choose a model"));
    m_table = new QTableWidget(0, kColumns);
    m_table->setObjectName(QStringLiteral("models"));
    m_table->setAccessibleName(tr("Models"));
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("Architecture"), tr("Parameters"),
                                        tr("Quantisation"), tr("File size"), tr("Context"),
                                        tr("Chat template"), tr("Memory")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(kName, QHeaderView::Stretch);
    m_table->verticalHeader()->hide();

    m_context = new QSpinBox;
    m_context->setObjectName(QStringLiteral("pickerContext"));
    m_context->setAccessibleName(tr("Context length for the memory estimate"));
    m_context->setRange(64, 1 << 20);
    m_context->setSingleStep(1024);
    m_context->setValue(context_length);
    auto* add_folder = new QPushButton(tr("Add folder…"));
    add_folder->setObjectName(QStringLiteral("addFolder"));
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Memory at a context of")));
    controls->addWidget(m_context);
    controls->addWidget(new QLabel(tr("tokens")));
    controls->addStretch();
    controls->addWidget(add_folder);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_load = buttons->addButton(tr("Load"), QDialogButtonBox::AcceptRole);
    m_load->setObjectName(QStringLiteral("loadModel"));
    m_load->setEnabled(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    resize(1000, 420);

    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { m_load->setEnabled(!selected_path().isEmpty()); });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this] {
        if (!selected_path().isEmpty()) accept();
    });
    connect(m_context, &QSpinBox::valueChanged, this, &ModelPicker::update_memory);
    connect(add_folder, &QPushButton::clicked, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, tr("Add a models folder"));
        if (folder.isEmpty()) return;
        emit addFolderRequested(folder);
        rescan();
    });
    rescan();
}

void ModelPicker::rescan() {
    m_entries = m_scan ? m_scan() : std::vector<core::ModelEntry>{};
    fill();
}

int ModelPicker::row_count() const {
    return m_table->rowCount();
}

void ModelPicker::fill() {
    m_table->setRowCount(static_cast<int>(m_entries.size()));
    for (size_t row = 0; row < m_entries.size(); ++row) {
        const auto& entry = m_entries[row];
        const auto& info = entry.info;
        const auto set = [&](int column, const QString& text) {
            auto* item = new QTableWidgetItem(text);
            item->setToolTip(entry.error.isEmpty() ? QString::fromStdString(info.path.string())
                                                   : entry.error);
            if (!entry.error.isEmpty()) item->setForeground(Qt::red);
            m_table->setItem(static_cast<int>(row), column, item);
        };
        if (!entry.error.isEmpty()) {
            set(kName, QString::fromStdString(info.path.filename().string()));
            set(kArchitecture, entry.error);
            for (int column = kParameters; column < kColumns; ++column) set(column, {});
            continue;
        }
        // The metadata's name is often generic ("llama"): the file name tells files apart.
        set(kName,
            QStringLiteral("%1 — %2").arg(QString::fromStdString(info.name),
                                          QString::fromStdString(info.path.filename().string())));
        set(kArchitecture, QString::fromStdString(architecture_text(info.architecture)));
        set(kParameters, QString::fromStdString(parameter_count_text(info.parameters)));
        set(kQuantization, QString::fromStdString(quantization_text(info)));
        set(kSize, byte_size_text(info.file_bytes));
        set(kContext, QString::number(info.context_length));
        set(kTemplate, QString::fromStdString(info.chat_family));
        set(kMemory, {});
    }
    update_memory();
}

void ModelPicker::update_memory() {
    for (size_t row = 0; row < m_entries.size(); ++row) {
        const auto& entry = m_entries[row];
        auto* item = m_table->item(static_cast<int>(row), kMemory);
        if (item == nullptr || !entry.error.isEmpty()) continue;
        const int context = std::min(m_context->value(), std::max(entry.info.context_length, 1));
        item->setText(byte_size_text(entry.info.memory_bytes(context)));
    }
}

QString ModelPicker::selected_path() const {
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) return {};
    const auto& entry = m_entries[static_cast<size_t>(rows.front().row())];
    return entry.error.isEmpty() ? QString::fromStdString(entry.info.path.string()) : QString();
}

}  // namespace hearth::ui
