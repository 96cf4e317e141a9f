// The model picker's Connections tab: remote engines (vLLM, llama.cpp's server, Ollama, another
// Hearth) beside the local files. The user adds, edits and removes connections, and lists a
// connection's models (GET /v1/models) to choose one as they would a local file. API keys go to
// the ApiKeyStore under the connection's name, never into the connections themselves; every
// call that can wait (the keyring, the server) runs off the GUI thread, so the dialog stays
// responsive while a server is slow or silent.
#pragma once

#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "app/core/api_key_store.h"
#include "app/core/remote_connection.h"

class QLabel;
class QListWidget;
class QListWidgetItem;
class QProgressBar;
class QPushButton;

namespace hearth::ui {

class ConnectionForm;

class ConnectionsPanel final : public QWidget {
    Q_OBJECT

public:
    // `current`: the remote model in use, marked in the list and selected at the start.
    ConnectionsPanel(std::vector<core::RemoteConnection> connections,
                     std::optional<core::RemoteChoice> current, core::ApiKeyStore keys,
                     QWidget* parent = nullptr);
    // Stops a listing that waits on a server: the thread pool it runs on is waited for when the
    // app quits, and a silent server would otherwise hold the quit for the listing's patience.
    ~ConnectionsPanel() override;

    const std::vector<core::RemoteConnection>& connections() const { return m_connections; }
    // The connection and model selected, if both are.
    std::optional<core::RemoteChoice> selected() const;
    // Whether a key is being stored, read or removed, or models are being listed.
    bool busy() const { return m_jobs > 0; }
    // Lists the selected connection's models (the Refresh button).
    void refresh();

signals:
    void connectionsChanged(const std::vector<core::RemoteConnection>& connections);
    void selectionChanged();
    void modelActivated();  // double-clicked: chosen like a local file

private:
    QWidget* make_connection_list();
    QWidget* make_model_list();
    void select_connection(int index);
    void save();
    void remove_selected();
    void save_key(const QString& old_name, const core::RemoteConnection& connection);
    void read_key(const QString& name);
    void show_models(const QString& name, const QStringList& models, const QString& error);
    void add_model_item(const QString& model, bool in_use);
    void set_listing(bool listing);
    int selected_index() const;
    QStringList names_except(int index) const;
    void finish_job();

    std::vector<core::RemoteConnection> m_connections;
    std::optional<core::RemoteChoice> m_current;
    core::ApiKeyStore m_keys;
    int m_jobs = 0;
    // Bumped when the selection changes or a listing starts: a listing that ends for an
    // earlier one is dropped.
    int m_listing_generation = 0;
    // Set when the panel goes; listings still running see it and give up.
    std::shared_ptr<std::atomic<bool>> m_closing = std::make_shared<std::atomic<bool>>(false);
    QListWidget* m_list = nullptr;
    QPushButton* m_remove = nullptr;
    ConnectionForm* m_form = nullptr;
    QListWidget* m_models = nullptr;
    QPushButton* m_refresh = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_listing_message = nullptr;
};

// Where the key is, in words for the user: the keyring, or the owner-only file's path.
QString key_location_text(const core::KeyResult& result);

}  // namespace hearth::ui
