#include "ui/model_picker.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/phrasing/architecture_text.h"
#include "app/phrasing/load_error_text.h"
#include "app/phrasing/model_text.h"
#include "app/phrasing/quantization_text.h"
#include "ui/connections_panel.h"
#include "ui/get_models_dialog.h"

namespace hearth::ui {
namespace {

// Which catalog entry a row shows, kept on its name cell: sorting moves rows.
constexpr int kEntryRole = Qt::UserRole;
// What a column sorts by where its text would sort wrongly ("9 MiB" after "10 GiB").
constexpr int kSortRole = Qt::UserRole + 1;

class SortableItem final : public QTableWidgetItem {
public:
    using QTableWidgetItem::QTableWidgetItem;

    bool operator<(const QTableWidgetItem& other) const override {
        const QVariant mine = data(kSortRole), theirs = other.data(kSortRole);
        if (mine.isValid() && theirs.isValid()) return mine.toDouble() < theirs.toDouble();
        return text().localeAwareCompare(other.text()) < 0;
    }
};

QString canonical(const QString& path) {
    const QString resolved = QFileInfo(path).canonicalFilePath();
    return resolved.isEmpty() ? path : resolved;
}

}  // namespace

QString byte_size_text(uint64_t bytes) {
    if (bytes >= (uint64_t{1} << 30))
        return QStringLiteral("%1 GiB").arg(bytes / double(1 << 30), 0, 'f', 2);
    if (bytes >= (uint64_t{1} << 20))
        return QStringLiteral("%1 MiB").arg(bytes / double(1 << 20), 0, 'f', 1);
    return QStringLiteral("%1 KiB").arg(bytes / 1024.0, 0, 'f', 0);
}

ModelPicker::ModelPicker(Scan scan, Setup setup, QWidget* parent)
    : QDialog(parent),
      m_scan(std::move(scan)),
      m_loaded_path(canonical(setup.loaded_path)),
      m_folders(std::move(setup.folders)) {
    setObjectName(QStringLiteral("modelPicker"));
    setWindowTitle(tr("Choose a model"));
    const bool remote_in_use = setup.remote.has_value();
    m_connections = new ConnectionsPanel(std::move(setup.connections), std::move(setup.remote),
                                         std::move(setup.keys));
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("modelSources"));
    m_tabs->addTab(make_local_page(setup.requested_context), tr("Model files"));
    m_tabs->addTab(m_connections, tr("Connections"));
    if (remote_in_use) m_tabs->setCurrentWidget(m_connections);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_load = buttons->addButton(tr("Load"), QDialogButtonBox::AcceptRole);
    m_load->setObjectName(QStringLiteral("loadModel"));
    m_load->setEnabled(false);
    auto* get_models = buttons->addButton(tr("Get models…"), QDialogButtonBox::ActionRole);
    get_models->setObjectName(QStringLiteral("getModels"));
    get_models->setToolTip(tr("Search Hugging Face and download a model into Hearth's folder"));
    connect(get_models, &QPushButton::clicked, this,
            [this] { open_get_models_dialog(this, m_context->value(), [this] { rescan(); }); });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(buttons);
    resize(1200, 520);

    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_tabs, &QTabWidget::currentChanged, this, &ModelPicker::update_load_button);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &ModelPicker::update_load_button);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this] {
        if (!selected_path().isEmpty()) accept();
    });
    connect(m_connections, &ConnectionsPanel::selectionChanged, this,
            &ModelPicker::update_load_button);
    connect(m_connections, &ConnectionsPanel::modelActivated, this, &QDialog::accept);
    connect(m_connections, &ConnectionsPanel::connectionsChanged, this,
            &ModelPicker::connectionsChanged);
    connect(m_context, &QSpinBox::valueChanged, this, &ModelPicker::update_memory);
    connect(m_filter, &QLineEdit::textChanged, this, &ModelPicker::apply_filter);
    m_table->horizontalHeader()->setSortIndicator(kName, Qt::AscendingOrder);
    rescan();
    // After the table's own handler has sorted: hidden rows are hidden by position.
    connect(m_table->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this, [this] {
        apply_filter();
        span_refusals();
    });
    update_load_button();
}

// The local files: the table, its filter and the memory estimate's context, and the folders.
QWidget* ModelPicker::make_local_page(int requested_context) {
    m_table = new QTableWidget(0, kColumns);
    m_table->setObjectName(QStringLiteral("models"));
    m_table->setAccessibleName(tr("Models"));
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("File"), tr("File size"), tr("Architecture"),
                                        tr("Parameters"), tr("Memory"), tr("Quantisation"),
                                        tr("Trained context"), tr("Chat template")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(kArchitecture, QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSortIndicatorShown(true);
    m_table->verticalHeader()->hide();

    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("modelFilter"));
    m_filter->setAccessibleName(tr("Filter the models"));
    m_filter->setPlaceholderText(tr("Filter by name, architecture or file"));
    m_filter->setClearButtonEnabled(true);
    m_context = new QSpinBox;
    m_context->setObjectName(QStringLiteral("pickerContext"));
    m_context->setAccessibleName(tr("Context length for the memory estimate"));
    m_context->setToolTip(
        tr("The memory column counts the KV cache at this many tokens. "
           "Unset, each model gets its trained length up to 4096, as a load "
           "does."));
    m_context->setRange(0, 1 << 20);
    m_context->setSingleStep(1024);
    m_context->setSpecialValueText(tr("each model's own, up to 4096"));
    m_context->setSuffix(tr(" tokens"));
    m_context->setValue(requested_context);
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_filter, 1);
    controls->addWidget(new QLabel(tr("Memory at a context of")));
    controls->addWidget(m_context);

    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    layout->addLayout(controls);
    layout->addWidget(m_table, 1);
    layout->addLayout(make_folder_controls());
    return page;
}

void ModelPicker::update_load_button() {
    m_load->setEnabled(!selected_path().isEmpty() || selected_remote().has_value());
}

// The folders the user added, which the catalog searches besides the usual places.
QLayout* ModelPicker::make_folder_controls() {
    m_folder_list = new QListWidget;
    m_folder_list->setObjectName(QStringLiteral("modelFolders"));
    m_folder_list->setAccessibleName(tr("Model folders you added"));
    m_folder_list->addItems(m_folders);
    m_folder_list->setMaximumHeight(3 * m_folder_list->fontMetrics().height() + 12);
    auto* add_folder = new QPushButton(tr("Add folder…"));
    add_folder->setObjectName(QStringLiteral("addFolder"));
    m_remove_folder = new QPushButton(tr("Remove folder"));
    m_remove_folder->setObjectName(QStringLiteral("removeFolder"));
    m_remove_folder->setToolTip(tr("Stop searching the selected folder (its files stay)"));
    m_remove_folder->setEnabled(false);
    auto* folder_buttons = new QVBoxLayout;
    folder_buttons->addWidget(add_folder);
    folder_buttons->addWidget(m_remove_folder);
    folder_buttons->addStretch();
    auto* label = new QLabel(tr("Your model folders:"));
    label->setToolTip(
        tr("Hearth also looks in its own models folder and in those of LM Studio, "
           "GPT4All, Jan and the Hugging Face cache"));
    auto* folders = new QHBoxLayout;
    folders->addWidget(label);
    folders->addWidget(m_folder_list, 1);
    folders->addLayout(folder_buttons);

    connect(m_folder_list, &QListWidget::itemSelectionChanged, this,
            [this] { m_remove_folder->setEnabled(!m_folder_list->selectedItems().isEmpty()); });
    connect(m_remove_folder, &QPushButton::clicked, this, &ModelPicker::remove_selected_folder);
    connect(add_folder, &QPushButton::clicked, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, tr("Add a models folder"));
        if (folder.isEmpty() || m_folders.contains(folder)) return;
        m_folders.append(folder);
        m_folder_list->addItem(folder);
        emit addFolderRequested(folder);
        rescan();
    });
    return folders;
}

void ModelPicker::remove_selected_folder() {
    const auto selected = m_folder_list->selectedItems();
    if (selected.isEmpty()) return;
    const QString folder = selected.front()->text();
    m_folders.removeAll(folder);
    delete m_folder_list->takeItem(m_folder_list->row(selected.front()));
    emit removeFolderRequested(folder);
    rescan();
}

void ModelPicker::rescan() {
    m_entries = m_scan ? m_scan() : std::vector<core::ModelEntry>{};
    fill();
}

int ModelPicker::row_count() const {
    return m_table->rowCount();
}

const core::ModelEntry* ModelPicker::entry_at(int row) const {
    const auto* item = m_table->item(row, kName);
    if (item == nullptr) return nullptr;
    return &m_entries[item->data(kEntryRole).toULongLong()];
}

void ModelPicker::fill() {
    // Rows move while sorting is on; they are filled in catalog order, then sorted once.
    m_table->setSortingEnabled(false);
    m_table->clearContents();
    m_table->setRowCount(static_cast<int>(m_entries.size()));
    for (size_t entry = 0; entry < m_entries.size(); ++entry)
        fill_row(static_cast<int>(entry), entry);
    update_memory();
    m_table->setSortingEnabled(true);
    apply_filter();
    span_refusals();
    m_table->resizeColumnToContents(kArchitecture);
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const auto* shown = entry_at(row);
        if (canonical(QString::fromStdString(shown->info.path.string())) == m_loaded_path) {
            m_table->selectRow(row);
        }
    }
}

void ModelPicker::fill_row(int row, size_t index) {
    const auto& entry = m_entries[index];
    const auto& info = entry.info;
    const QString path = QString::fromStdString(info.path.string());
    const bool loaded = canonical(path) == m_loaded_path;
    const auto set = [&](int column, const QString& text, QVariant sort_key = {}) {
        auto* item = new SortableItem(text);
        item->setToolTip(entry.error.isEmpty() ? path : entry.error);
        if (sort_key.isValid()) item->setData(kSortRole, sort_key);
        if (!entry.error.isEmpty()) item->setForeground(Qt::red);
        if (loaded) {
            QFont font = item->font();
            font.setBold(true);
            item->setFont(font);
        }
        m_table->setItem(row, column, item);
        return item;
    };
    const QString file = QString::fromStdString(info.path.filename().string());
    set(kSize, byte_size_text(info.file_bytes), static_cast<double>(info.file_bytes));
    const QString name = entry.error.isEmpty() ? QString::fromStdString(info.name)
                                               : QString::fromStdString(info.path.stem().string());
    auto* name_item = set(kName, loaded ? tr("%1 (loaded)").arg(name) : name);
    name_item->setData(kEntryRole, QVariant::fromValue(static_cast<qulonglong>(index)));
    set(kFile, file);
    if (!entry.error.isEmpty()) {
        set(kArchitecture,
            QString::fromStdString(load_error_text(entry.error.toStdString(), info.path.string())));
        for (int column = kParameters; column < kColumns; ++column) set(column, {}, -1);
        return;
    }
    set(kArchitecture, QString::fromStdString(architecture_text(info.architecture)));
    set(kParameters, QString::fromStdString(parameters_text(info)),
        static_cast<double>(info.parameters));
    set(kQuantization, QString::fromStdString(quantization_text(info)));
    set(kContext, QString::number(info.context_length), info.context_length);
    set(kTemplate, QString::fromStdString(info.chat_family));
    set(kMemory, {}, 0);
}

void ModelPicker::update_memory() {
    const bool sorting = m_table->isSortingEnabled();
    m_table->setSortingEnabled(false);  // a changed sort key would move rows under the loop
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const auto* entry = entry_at(row);
        auto* item = m_table->item(row, kMemory);
        if (entry == nullptr || item == nullptr || !entry->error.isEmpty()) continue;
        const int context = core::chosen_context(entry->info, m_context->value());
        const uint64_t bytes = entry->info.memory_bytes(context);
        item->setText(tr("%1 at %2").arg(byte_size_text(bytes)).arg(context));
        item->setToolTip(
            tr("Weights, working buffers and the KV cache for %1 tokens of context").arg(context));
        item->setData(kSortRole, static_cast<double>(bytes));
    }
    m_table->setSortingEnabled(sorting);
}

// A refused file's reason runs over the columns its metadata would fill, so the architecture
// column keeps the width of a family's name. Spans belong to positions, not items: they are
// laid again after each sort.
void ModelPicker::span_refusals() {
    m_table->clearSpans();
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const auto* entry = entry_at(row);
        if (entry != nullptr && !entry->error.isEmpty())
            m_table->setSpan(row, kArchitecture, 1, kColumns - kArchitecture);
    }
}

void ModelPicker::apply_filter() {
    const QString words = m_filter->text().trimmed();
    for (int row = 0; row < m_table->rowCount(); ++row) {
        bool shown = words.isEmpty();
        for (const int column : {kName, kFile, kArchitecture}) {
            const auto* item = m_table->item(row, column);
            shown = shown || (item != nullptr && item->text().contains(words, Qt::CaseInsensitive));
        }
        m_table->setRowHidden(row, !shown);
    }
    // A hidden row stays selected otherwise, and Load would load a file the user cannot see.
    const auto selected = m_table->selectionModel()->selectedRows();
    if (!selected.isEmpty() && m_table->isRowHidden(selected.front().row()))
        m_table->clearSelection();
}

std::optional<core::RemoteChoice> ModelPicker::selected_remote() const {
    if (m_tabs->currentWidget() != m_connections) return std::nullopt;
    return m_connections->selected();
}

QString ModelPicker::selected_path() const {
    if (m_tabs->currentWidget() == m_connections) return {};
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) return {};
    const auto* entry = entry_at(rows.front().row());
    if (entry == nullptr || !entry->error.isEmpty()) return {};
    return QString::fromStdString(entry->info.path.string());
}

}  // namespace hearth::ui
