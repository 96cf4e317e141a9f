// Lists the GGUF files Hearth can find with what matters before loading one: file, architecture,
// size, quantisation, context, chat template, and the memory it needs at the context a load
// would get; which one is loaded, and why a file cannot be used. Sorts by any column, filters
// by name, architecture or file, and keeps the user's list of extra model folders. Beside the
// files, a Connections tab offers the models of remote engines (ConnectionsPanel), chosen the
// same way.
#pragma once

#include <QDialog>
#include <QStringList>

#include <functional>
#include <optional>
#include <vector>

#include "app/core/api_key_store.h"
#include "app/core/model_catalog.h"
#include "app/core/remote_connection.h"
#include "engine/model/model_info.h"

class QLineEdit;
class QListWidget;
class QSpinBox;
class QTabWidget;
class QTableWidget;
class QPushButton;

namespace hearth::ui {

class ConnectionsPanel;

class ModelPicker final : public QDialog {
    Q_OBJECT

public:
    enum Column {
        kName,
        kFile,
        kSize,
        kArchitecture,  // or, for a file that cannot be used, why (over the columns after it)
        kParameters,
        kMemory,  // at the context a load would get
        kQuantization,
        kContext,
        kTemplate,
        kColumns
    };

    // What the window knows when it opens the picker.
    struct Setup {
        int requested_context = 0;  // the conversation's setting; 0: each model's own, capped
        QString loaded_path;        // the model in use, marked in the list
        QStringList folders;        // model folders the user added (they can remove them)
        std::vector<core::RemoteConnection> connections;
        std::optional<core::RemoteChoice> remote;  // the remote model in use, marked
        // Where the connections' API keys are kept (the keyring, or a file without one).
        core::ApiKeyStore keys = core::ApiKeyStore::for_app();
    };

    using Scan = std::function<std::vector<core::ModelEntry>()>;
    ModelPicker(Scan scan, Setup setup, QWidget* parent = nullptr);

    // The local file chosen, when the local files are shown; empty otherwise.
    QString selected_path() const;
    // Set when the user chose a remote model (the Connections tab is shown).
    std::optional<core::RemoteChoice> selected_remote() const;
    ConnectionsPanel& connections_panel() const { return *m_connections; }
    int row_count() const;
    const std::vector<core::ModelEntry>& entries() const { return m_entries; }
    const QStringList& folders() const { return m_folders; }
    void rescan();

signals:
    void addFolderRequested(const QString& folder);
    void removeFolderRequested(const QString& folder);
    // The user added, edited or removed a connection: the whole list, to save.
    void connectionsChanged(const std::vector<core::RemoteConnection>& connections);

private:
    QWidget* make_local_page(int requested_context);
    QLayout* make_folder_controls();
    void update_load_button();
    void fill();
    void fill_row(int row, size_t entry);
    void update_memory();
    void apply_filter();
    void span_refusals();
    void remove_selected_folder();
    const core::ModelEntry* entry_at(int row) const;

    Scan m_scan;
    QString m_loaded_path;
    QStringList m_folders;
    std::vector<core::ModelEntry> m_entries;
    QTableWidget* m_table = nullptr;
    QLineEdit* m_filter = nullptr;
    QSpinBox* m_context = nullptr;
    QListWidget* m_folder_list = nullptr;
    QPushButton* m_remove_folder = nullptr;
    QPushButton* m_load = nullptr;
    QTabWidget* m_tabs = nullptr;
    ConnectionsPanel* m_connections = nullptr;
};

QString byte_size_text(uint64_t bytes);

}  // namespace hearth::ui
