#include "ui/connections_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "engine/remote/remote_client.h"
#include "engine/remote/remote_error.h"
#include "ui/background_job.h"
#include "ui/connection_form.h"
#include "ui/message_label.h"

namespace hearth::ui {
namespace {

// The model id on a model's item; its text may say "(in use)".
constexpr int kModelRole = Qt::UserRole;

// A model list is one short reply: a server silent for this long is not going to answer, and
// the thread pool waits for a running listing when the app quits.
constexpr std::chrono::seconds kListingPatience{20};

struct Listing {
    QStringList models;
    QString key_problem;  // the key could not be read, so the server was not asked
    QString error;        // the server's or the connection's failure, as the client words it
};

Listing list_models(const core::ApiKeyStore& keys, const core::RemoteConnection& connection,
                    const std::atomic<bool>& cancel) {
    const core::KeyResult key = keys.read(connection.name);
    if (!key.ok) return {.key_problem = key.detail};
    try {
        remote::RemoteClient client(
            {.base_url = connection.base_url.toStdString(),
             .api_key = key.key.toStdString(),
             .trusted_certificate = connection.trusted_certificate.toStdString(),
             .idle_timeout = kListingPatience});
        Listing listing;
        for (const std::string& model : client.models(&cancel))
            listing.models.append(QString::fromStdString(model));
        return listing;
    } catch (const std::exception& error) {  // RemoteError, named by the client
        return {.error = QString::fromStdString(error.what())};
    }
}

// Puts the connection's key under `name`: `key` where the user typed one (empty: no key, so
// any stored one goes), else the key kept under `old_name` (a rename moves it). The key under
// the old name goes once the new one is stored.
core::KeyResult put_key(const core::ApiKeyStore& keys, const QString& old_name, const QString& name,
                        std::optional<QString> key) {
    if (!key) {
        const core::KeyResult kept = keys.read(old_name);
        if (!kept.ok) return kept;
        key = kept.key;
    }
    core::KeyResult result = key->isEmpty() ? keys.remove(name) : keys.store(name, *key);
    if (result.ok && !old_name.isEmpty() && old_name != name) keys.remove(old_name);
    result.key = *key;  // empty: the connection has no key now
    return result;
}

// A list under its title, with its buttons below.
QWidget* titled_list(const QString& title, QListWidget* list, QLayout* controls) {
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(title));
    layout->addWidget(list, 1);
    layout->addLayout(controls);
    return box;
}

}  // namespace

QString key_location_text(const core::KeyResult& result) {
    if (result.location == core::KeyLocation::Keyring)
        return ConnectionsPanel::tr("The API key is in the system keyring.");
    return ConnectionsPanel::tr(
               "No keyring is running, so the API key is in %1, which only you can read.")
        .arg(result.detail);
}

ConnectionsPanel::ConnectionsPanel(std::vector<core::RemoteConnection> connections,
                                   std::optional<core::RemoteChoice> current,
                                   core::ApiKeyStore keys, QWidget* parent)
    : QWidget(parent),
      m_connections(std::move(connections)),
      m_current(std::move(current)),
      m_keys(std::move(keys)) {
    setObjectName(QStringLiteral("connectionsPanel"));
    m_form = new ConnectionForm;
    auto* details = new QVBoxLayout;
    details->addWidget(m_form);
    details->addWidget(make_model_list(), 1);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(make_connection_list());
    layout->addLayout(details, 1);

    connect(m_form, &ConnectionForm::saveRequested, this, &ConnectionsPanel::save);
    connect(m_list, &QListWidget::currentRowChanged, this, &ConnectionsPanel::select_connection);
    int first = m_connections.empty() ? -1 : 0;
    for (size_t index = 0; index < m_connections.size(); ++index) {
        if (m_current && m_connections[index].name == m_current->connection.name)
            first = static_cast<int>(index);
    }
    {
        const QSignalBlocker quiet(m_list);  // shown once, below, whether the row moved or not
        m_list->setCurrentRow(first);
    }
    select_connection(first);
}

QWidget* ConnectionsPanel::make_connection_list() {
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("connections"));
    m_list->setAccessibleName(tr("Connections"));
    for (const core::RemoteConnection& connection : m_connections) {
        auto* item = new QListWidgetItem(connection.name, m_list);
        item->setToolTip(connection.base_url);
    }
    auto* add = new QPushButton(tr("New connection"));
    add->setObjectName(QStringLiteral("addConnection"));
    m_remove = new QPushButton(tr("Remove"));
    m_remove->setObjectName(QStringLiteral("removeConnection"));
    m_remove->setToolTip(tr("Forget the selected connection and its API key"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(m_remove);
    QWidget* column = titled_list(tr("Servers running the model for you:"), m_list, buttons);
    column->setMaximumWidth(320);

    connect(add, &QPushButton::clicked, this, [this] { m_list->setCurrentRow(-1); });
    connect(m_remove, &QPushButton::clicked, this, &ConnectionsPanel::remove_selected);
    return column;
}

QWidget* ConnectionsPanel::make_model_list() {
    m_models = new QListWidget;
    m_models->setObjectName(QStringLiteral("remoteModels"));
    m_models->setAccessibleName(tr("Models on this server"));
    m_refresh = new QPushButton(tr("Refresh"));
    m_refresh->setObjectName(QStringLiteral("refreshModels"));
    m_refresh->setToolTip(tr("Ask the server which models it serves"));
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("listingProgress"));
    m_progress->setRange(0, 0);  // busy: a listing has no steps to count
    m_progress->setMaximumWidth(120);
    m_progress->hide();
    m_listing_message = make_message_label("listingMessage");
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_refresh);
    controls->addWidget(m_progress);
    controls->addWidget(m_listing_message, 1);
    QWidget* box = titled_list(tr("Its models:"), m_models, controls);

    connect(m_refresh, &QPushButton::clicked, this, &ConnectionsPanel::refresh);
    connect(m_models, &QListWidget::itemSelectionChanged, this,
            &ConnectionsPanel::selectionChanged);
    connect(m_models, &QListWidget::itemDoubleClicked, this, [this] {
        if (selected()) emit modelActivated();
    });
    return box;
}

int ConnectionsPanel::selected_index() const {
    return m_list->currentRow();
}

QStringList ConnectionsPanel::names_except(int index) const {
    QStringList names;
    for (size_t each = 0; each < m_connections.size(); ++each) {
        if (static_cast<int>(each) != index) names.append(m_connections[each].name);
    }
    return names;
}

void ConnectionsPanel::select_connection(int index) {
    ++m_listing_generation;  // a listing still running is for the connection before
    set_listing(false);
    m_models->clear();
    m_listing_message->clear();
    m_remove->setEnabled(index >= 0);
    if (index < 0) {
        m_form->clear();
    } else {
        const core::RemoteConnection& connection = m_connections[index];
        m_form->show_connection(connection);
        read_key(connection.name);
        // The model in use stays choosable before (and without) a new listing.
        if (m_current && m_current->connection.name == connection.name) {
            add_model_item(m_current->model, true);
            m_models->setCurrentRow(0);
        }
    }
    emit selectionChanged();
}

void ConnectionsPanel::save() {
    const int index = selected_index();
    const std::optional<core::RemoteConnection> connection = m_form->checked(names_except(index));
    if (!connection) return;
    // A new connection always sets its key (empty: none), so a key left under the same name
    // by an earlier connection is not sent to this server.
    const std::optional<QString> key =
        index < 0 || m_form->key_edited() ? std::optional(m_form->key()) : std::nullopt;
    QString old_name;
    if (index < 0) {
        m_connections.push_back(*connection);
        const QSignalBlocker quiet(m_list);  // the form keeps what was typed
        new QListWidgetItem(connection->name, m_list);
        m_list->setCurrentRow(m_list->count() - 1);
        m_remove->setEnabled(true);
    } else {
        old_name = m_connections[index].name;
        m_connections[index] = *connection;
        m_list->item(index)->setText(connection->name);
    }
    m_list->currentItem()->setToolTip(connection->base_url);
    emit connectionsChanged(m_connections);
    if (!key && old_name == connection->name) {
        refresh();
        return;
    }
    ++m_jobs;
    run_in_background(
        this,
        [keys = m_keys, old_name, name = connection->name, key] {
            return put_key(keys, old_name, name, key);
        },
        [this, name = connection->name](const core::KeyResult& result) {
            finish_job();
            if (selected_index() < 0 || m_connections[selected_index()].name != name) return;
            if (!result.ok) {
                m_form->show_message(tr("The API key could not be stored: %1").arg(result.detail),
                                     true);
                return;
            }
            m_form->set_key(m_form->key());  // stored: a later save leaves it be
            m_form->show_message(result.key.isEmpty() ? tr("No API key is sent to this server.")
                                                      : key_location_text(result),
                                 false);
            refresh();
        });
}

void ConnectionsPanel::read_key(const QString& name) {
    ++m_jobs;
    run_in_background(
        this, [keys = m_keys, name] { return keys.read(name); },
        [this, name](const core::KeyResult& result) {
            finish_job();
            if (selected_index() < 0 || m_connections[selected_index()].name != name) return;
            if (!result.ok) {
                m_form->show_message(tr("The API key could not be read: %1").arg(result.detail),
                                     true);
            } else if (result.key.isEmpty()) {
                m_form->show_message(tr("No API key is stored for this connection."), false);
            } else {
                if (!m_form->key_edited()) m_form->set_key(result.key);
                m_form->show_message(key_location_text(result), false);
            }
        });
}

void ConnectionsPanel::remove_selected() {
    const int index = selected_index();
    if (index < 0) return;
    const QString name = m_connections[index].name;
    m_connections.erase(m_connections.begin() + index);
    {
        const QSignalBlocker quiet(m_list);
        delete m_list->takeItem(index);
        m_list->setCurrentRow(-1);
    }
    select_connection(-1);
    emit connectionsChanged(m_connections);
    ++m_jobs;
    run_in_background(
        this, [keys = m_keys, name] { return keys.remove(name); },
        [this, name](const core::KeyResult& result) {
            finish_job();
            if (result.ok) {
                m_form->show_message(tr("Removed \"%1\" and its API key.").arg(name), false);
            } else {
                m_form->show_message(tr("Removed \"%1\", but its API key could not be removed: %2")
                                         .arg(name, result.detail),
                                     true);
            }
        });
}

ConnectionsPanel::~ConnectionsPanel() {
    *m_closing = true;
}

void ConnectionsPanel::refresh() {
    const int index = selected_index();
    if (index < 0) return;
    const core::RemoteConnection connection = m_connections[index];
    const int generation = ++m_listing_generation;
    set_listing(true);
    show_message(*m_listing_message, tr("Asking %1 for its models…").arg(connection.base_url),
                 false);
    ++m_jobs;
    run_in_background(
        this,
        [keys = m_keys, connection, closing = m_closing] {
            return list_models(keys, connection, *closing);
        },
        [this, generation, name = connection.name](const Listing& listing) {
            finish_job();
            if (generation != m_listing_generation) return;
            set_listing(false);
            if (!listing.key_problem.isEmpty()) {
                show_models(name, {},
                            tr("The API key could not be read, so the server was not asked: %1")
                                .arg(listing.key_problem));
            } else {
                show_models(name, listing.models, listing.error);
            }
        });
}

void ConnectionsPanel::show_models(const QString& name, const QStringList& models,
                                   const QString& error) {
    m_models->clear();
    const bool current_here = m_current && m_current->connection.name == name;
    for (const QString& model : models) {
        add_model_item(model, current_here && model == m_current->model);
        if (current_here && model == m_current->model)
            m_models->setCurrentRow(m_models->count() - 1);
    }
    if (!error.isEmpty()) {
        show_message(*m_listing_message, error, true);
    } else if (models.isEmpty()) {
        show_message(*m_listing_message, tr("The server lists no models."), false);
    } else {
        const QString count =
            models.size() == 1 ? tr("1 model") : tr("%1 models").arg(models.size());
        show_message(*m_listing_message, tr("%1 on %2.").arg(count, name), false);
    }
    emit selectionChanged();
}

void ConnectionsPanel::add_model_item(const QString& model, bool in_use) {
    auto* item = new QListWidgetItem(in_use ? tr("%1 (in use)").arg(model) : model, m_models);
    item->setData(kModelRole, model);
    if (in_use) {
        QFont font = item->font();
        font.setBold(true);
        item->setFont(font);
    }
}

void ConnectionsPanel::set_listing(bool listing) {
    m_progress->setVisible(listing);
    m_refresh->setEnabled(!listing && selected_index() >= 0);
}

void ConnectionsPanel::finish_job() {
    --m_jobs;
}

std::optional<core::RemoteChoice> ConnectionsPanel::selected() const {
    const int index = selected_index();
    const auto items = m_models->selectedItems();
    if (index < 0 || items.isEmpty()) return std::nullopt;
    return core::RemoteChoice{.connection = m_connections[index],
                              .model = items.front()->data(kModelRole).toString()};
}

}  // namespace hearth::ui
