#include "ui/get_models_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/core/api_key_store.h"
#include "app/core/downloads/repository_reference.h"
#include "app/core/model_catalog.h"
#include "ui/background_job.h"
#include "ui/model_picker.h"

namespace hearth::ui {
namespace {

constexpr int kRepositoryRole = Qt::UserRole + 1;
// Where the keyring keeps the Hugging Face token, beside the remote engines' keys (which are
// named after their connections: a connection may well be called "huggingface").
const QString kTokenName = QStringLiteral("huggingface-hub-token");

QTableWidgetItem* item(const QString& text) {
    auto* cell = new QTableWidgetItem(text);
    cell->setFlags(cell->flags() & ~Qt::ItemIsEditable);
    return cell;
}

// A search result: the repository, with its download count where the Hub gives one.
QString search_result_text(const downloads::HubModel& model) {
    if (!model.downloads) return model.id;
    const qint64 count = *model.downloads;
    return count == 1 ? GetModelsDialog::tr("%1  (1 download)").arg(model.id)
                      : GetModelsDialog::tr("%1  (%2 downloads)").arg(model.id).arg(count);
}

QString choices_text(const QString& repository, size_t count) {
    return count == 1 ? GetModelsDialog::tr("%1: 1 model. Select it to see the memory it needs.")
                            .arg(repository)
                      : GetModelsDialog::tr("%1: %2 models. Select one to see the memory it needs.")
                            .arg(repository)
                            .arg(count);
}

}  // namespace

GetModelsDialog::Setup GetModelsDialog::Setup::for_this_machine(int requested_context) {
    Setup setup;
    setup.folder = core::own_models_folder();
    setup.requested_context = requested_context;
    const core::ApiKeyStore store = core::ApiKeyStore::for_app();
    setup.load_token = [store] { return store.read(kTokenName).key; };
    setup.save_token = [store](const QString& token) {
        const auto result =
            token.isEmpty() ? store.remove(kTokenName) : store.store(kTokenName, token);
        if (!result.ok) return tr("The token could not be saved: %1").arg(result.detail);
        if (token.isEmpty()) return tr("The token was removed.");
        return result.location == core::KeyLocation::Keyring
                   ? tr("The token is saved in the system keyring.")
                   : tr("No keyring answered: the token is saved in %1, readable only by you.")
                         .arg(QDir::toNativeSeparators(result.detail));
    };
    return setup;
}

void open_get_models_dialog(QWidget* parent, int requested_context,
                            const std::function<void()>& downloaded) {
    GetModelsDialog dialog(GetModelsDialog::Setup::for_this_machine(requested_context), parent);
    QObject::connect(&dialog, &GetModelsDialog::modelDownloaded, parent, [downloaded] {
        if (downloaded) downloaded();
    });
    dialog.exec();
}

QString time_left_text(double seconds) {
    const auto whole = static_cast<qint64>(seconds + 0.5);
    if (whole >= 3600) {
        return GetModelsDialog::tr("%1 h %2 min left").arg(whole / 3600).arg(whole % 3600 / 60);
    }
    if (whole >= 60) {
        return GetModelsDialog::tr("%1 min %2 s left").arg(whole / 60).arg(whole % 60);
    }
    return GetModelsDialog::tr("%1 s left").arg(whole);
}

GetModelsDialog::GetModelsDialog(Setup setup, QWidget* parent)
    : QDialog(parent), m_setup(std::move(setup)), m_hub(m_setup.hub) {
    setWindowTitle(tr("Get models from Hugging Face"));
    m_results = new QListWidget;
    m_results->setObjectName(QStringLiteral("searchResults"));
    m_results->setAccessibleName(tr("Repositories found"));
    m_files = new QTableWidget(0, kColumns);
    m_files->setObjectName(QStringLiteral("repositoryFiles"));
    m_files->setAccessibleName(tr("The repository's models"));
    m_files->setHorizontalHeaderLabels(
        {tr("Model"), tr("Size"), tr("Quantisation"), tr("Memory"), tr("This machine")});
    m_files->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_files->setSelectionMode(QAbstractItemView::SingleSelection);
    m_files->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_files->horizontalHeader()->setStretchLastSection(true);
    m_files->verticalHeader()->hide();
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("downloadStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* lists = new QHBoxLayout;
    lists->addWidget(m_results, 1);
    lists->addWidget(m_files, 3);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(make_search_row());
    layout->addLayout(lists, 1);
    layout->addLayout(make_download_row());
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    resize(1100, 560);

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_results, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* current) {
        if (current) open_repository(current->data(kRepositoryRole).toString(), {});
    });
    connect(m_files, &QTableWidget::itemSelectionChanged, this, [this] {
        m_download->setEnabled(selected_row() >= 0 && !m_job);
        show_selection_status();
        estimate_selected();
    });
    connect(m_context, &QSpinBox::valueChanged, this, [this] {
        for (const auto& [row, estimate] : m_estimates) show_estimate(row);
    });
    if (m_setup.load_token) {
        run_in_background(this, m_setup.load_token, [this](const QString& token) {
            if (m_token->text().isEmpty()) m_token->setText(token);
        });
    }
}

GetModelsDialog::~GetModelsDialog() = default;

QLayout* GetModelsDialog::make_search_row() {
    m_query = new QLineEdit;
    m_query->setObjectName(QStringLiteral("hubQuery"));
    m_query->setAccessibleName(tr("Search Hugging Face"));
    m_query->setPlaceholderText(
        tr("Search by name, or paste a repository (owner/name) or its address"));
    m_query->setClearButtonEnabled(true);
    auto* search = new QPushButton(tr("Search"));
    search->setObjectName(QStringLiteral("hubSearch"));
    m_token = new QLineEdit;
    m_token->setObjectName(QStringLiteral("hubToken"));
    m_token->setAccessibleName(tr("Hugging Face access token"));
    m_token->setEchoMode(QLineEdit::Password);
    m_token->setPlaceholderText(tr("Access token (gated models)"));
    m_token->setToolTip(tr("From huggingface.co/settings/tokens; kept in the system keyring"));
    auto* save = new QPushButton(tr("Save token"));
    save->setObjectName(QStringLiteral("saveToken"));
    save->setEnabled(static_cast<bool>(m_setup.save_token));
    auto* row = new QHBoxLayout;
    row->addWidget(m_query, 3);
    row->addWidget(search);
    row->addWidget(m_token, 1);
    row->addWidget(save);
    connect(m_query, &QLineEdit::returnPressed, this, &GetModelsDialog::search);
    connect(search, &QPushButton::clicked, this, &GetModelsDialog::search);
    connect(save, &QPushButton::clicked, this, &GetModelsDialog::save_token);
    connect(m_token, &QLineEdit::textChanged, this,
            [this](const QString& token) { m_hub.set_token(token.trimmed()); });
    return row;
}

QLayout* GetModelsDialog::make_download_row() {
    m_context = new QSpinBox;
    m_context->setObjectName(QStringLiteral("hubContext"));
    m_context->setAccessibleName(tr("Context length for the memory estimate"));
    m_context->setRange(0, 1 << 20);
    m_context->setSingleStep(1024);
    m_context->setSpecialValueText(tr("each model's own, up to 4096"));
    m_context->setSuffix(tr(" tokens"));
    m_context->setValue(m_setup.requested_context);
    m_download = new QPushButton(tr("Download"));
    m_download->setObjectName(QStringLiteral("startDownload"));
    m_download->setEnabled(false);
    m_pause = new QPushButton(tr("Pause"));
    m_pause->setObjectName(QStringLiteral("pauseDownload"));
    m_cancel = new QPushButton(tr("Cancel download"));
    m_cancel->setObjectName(QStringLiteral("cancelDownload"));
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("downloadProgress"));
    set_downloading(false);
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Memory at a context of")));
    row->addWidget(m_context);
    row->addWidget(m_download);
    row->addWidget(m_progress, 1);
    row->addWidget(m_pause);
    row->addWidget(m_cancel);
    connect(m_download, &QPushButton::clicked, this, &GetModelsDialog::download_selected);
    connect(m_pause, &QPushButton::clicked, this, &GetModelsDialog::toggle_pause);
    connect(m_cancel, &QPushButton::clicked, this, &GetModelsDialog::cancel_download);
    return row;
}

// A repository id or address opens its files; other words search.
void GetModelsDialog::search() {
    const QString text = m_query->text().trimmed();
    if (text.isEmpty()) return;
    if (text.contains('/')) {
        if (const auto reference = downloads::parse_repository_reference(text)) {
            open_repository(reference->repository, reference->file);
            return;
        }
    }
    m_status->setText(tr("Searching…"));
    m_hub.search(text, [this, dialog = QPointer(this), text](auto result) {
        if (!dialog) return;
        m_results->clear();
        if (!result.ok()) {
            show_error(result.error->text);
            return;
        }
        for (const auto& model : result.value) {
            auto* entry = new QListWidgetItem(search_result_text(model), m_results);
            entry->setData(kRepositoryRole, model.id);
        }
        m_status->setText(result.value.empty() ? tr("No GGUF models found for “%1”.").arg(text)
                                               : tr("Choose a repository."));
    });
}

void GetModelsDialog::open_repository(const QString& repository, const QString& file) {
    m_repository = repository;
    ++m_generation;
    m_files->setRowCount(0);
    m_estimates.clear();
    m_status->setText(tr("Listing the files of %1…").arg(repository));
    m_hub.list_files(repository, [this, dialog = QPointer(this), repository, file,
                                  generation = m_generation](auto result) {
        if (!dialog || generation != m_generation) return;
        if (!result.ok()) {
            show_error(result.error->text);
            return;
        }
        show_choices(downloads::gguf_choices(result.value), file);
    });
}

void GetModelsDialog::show_choices(std::vector<downloads::GgufChoice> choices,
                                   const QString& file) {
    m_choices = std::move(choices);
    m_files->setRowCount(static_cast<int>(m_choices.size()));
    for (int row = 0; row < m_files->rowCount(); ++row) {
        const auto& choice = m_choices[static_cast<size_t>(row)];
        const QString parts =
            choice.split() ? tr(" (%1 parts)").arg(choice.declared_parts) : QString();
        m_files->setItem(row, kModel, item(choice.name + parts));
        m_files->setItem(row, kSize, item(byte_size_text(choice.total_bytes())));
        m_files->setItem(row, kQuantization, item(choice.quantization));
        m_files->setItem(row, kMemory, item(tr("select to estimate")));
        m_files->setItem(row, kFits, item({}));
    }
    m_status->setText(m_choices.empty() ? tr("%1 has no GGUF models.").arg(m_repository)
                                        : choices_text(m_repository, m_choices.size()));
    if (const auto* chosen = downloads::find_choice(m_choices, file)) {
        m_files->selectRow(static_cast<int>(chosen - m_choices.data()));
    }
}

// Once a model is selected the line says what Download will do, not to select one; a download's
// own status (progress, errors) stays while it runs.
void GetModelsDialog::show_selection_status() {
    if (m_job) return;
    const int row = selected_row();
    if (row < 0) {
        m_status->setText(choices_text(m_repository, m_choices.size()));
        return;
    }
    const auto& choice = m_choices[static_cast<size_t>(row)];
    m_status->setText(tr("%1 selected (%2). Download saves it in %3.")
                          .arg(choice.name, byte_size_text(choice.total_bytes()),
                               QDir::toNativeSeparators(m_setup.folder)));
}

// The selected model's header is read (a few range requests) once; the figures follow the
// context box afterwards.
void GetModelsDialog::estimate_selected() {
    const int row = selected_row();
    if (row < 0 || m_estimates.count(row) > 0) return;
    const auto& choice = m_choices[static_cast<size_t>(row)];
    m_files->item(row, kMemory)->setText(tr("reading the header…"));
    downloads::estimate_from_headers(
        m_hub, m_repository, choice.parts,
        [this, dialog = QPointer(this), row, generation = m_generation](auto result) {
            if (!dialog || generation != m_generation) return;
            if (!result.ok()) {
                m_files->item(row, kMemory)->setText(tr("no estimate"));
                m_files->item(row, kMemory)->setToolTip(result.error->text);
                m_files->item(row, kFits)->setText(result.error->text);
                return;
            }
            m_estimates[row] = std::move(result.value);
            show_estimate(row);
        });
}

void GetModelsDialog::show_estimate(int row) {
    const auto& estimate = m_estimates.at(row);
    const auto fit = downloads::memory_fit(estimate.info, m_context->value());
    m_files->item(row, kMemory)
        ->setText(tr("%1 at %2").arg(byte_size_text(fit.needed)).arg(fit.context));
    m_files->item(row, kMemory)
        ->setToolTip(
            tr("Weights, working buffers and the KV cache for %1 tokens, read from %2 of GGUF "
               "header (every part's, for a model split into parts)")
                .arg(fit.context)
                .arg(byte_size_text(static_cast<uint64_t>(estimate.bytes_read))));
    // A name without a quantiser's label: the header says what most weights are stored in.
    if (m_files->item(row, kQuantization)->text().isEmpty()) {
        m_files->item(row, kQuantization)
            ->setText(QString::fromStdString(estimate.info.quantization));
    }
    const QString free = fit.available ? byte_size_text(*fit.available) : tr("unknown");
    m_files->item(row, kFits)
        ->setText(fit.fits() ? tr("Fits (%1 free)").arg(free)
                             : tr("Does not fit (%1 free)").arg(free));
}

void GetModelsDialog::download_selected() {
    const int row = selected_row();
    if (row < 0 || m_job) return;
    const auto& choice = m_choices[static_cast<size_t>(row)];
    m_queue.assign(choice.parts.rbegin(), choice.parts.rend());  // popped from the back
    set_downloading(true);
    start_next_part();
}

void GetModelsDialog::start_next_part() {
    if (m_queue.empty()) {
        set_downloading(false);
        return;
    }
    const auto part = m_queue.back();
    m_queue.pop_back();
    m_job = std::make_unique<downloads::DownloadJob>(m_hub, m_repository, part, m_setup.folder);
    connect(m_job.get(), &downloads::DownloadJob::progressed, this,
            &GetModelsDialog::show_progress);
    connect(m_job.get(), &downloads::DownloadJob::finished, this, [this](const QString& path) {
        m_status->setText(tr("Downloaded and verified: %1").arg(QDir::toNativeSeparators(path)));
        m_job.release()->deleteLater();
        emit modelDownloaded(path);
        start_next_part();
    });
    connect(m_job.get(), &downloads::DownloadJob::failed, this,
            [this](const downloads::HubError& error) {
                show_error(error.text);
                m_queue.clear();
                m_job.release()->deleteLater();
                set_downloading(false);
            });
    connect(m_job.get(), &downloads::DownloadJob::paused, this, [this] {
        m_pause->setText(tr("Resume"));
        m_status->setText(tr("Paused: %1 is kept and resumes where it stopped.")
                              .arg(QDir::toNativeSeparators(m_job->part_path())));
    });
    m_status->setText(tr("Downloading %1…").arg(part.path));
    m_job->start();
}

void GetModelsDialog::toggle_pause() {
    if (!m_job) return;
    if (m_job->state() == downloads::DownloadState::Paused) {
        m_pause->setText(tr("Pause"));
        m_status->setText(tr("Resuming %1…").arg(m_job->file().path));
        m_job->start();
    } else {
        m_job->pause();
    }
}

void GetModelsDialog::cancel_download() {
    m_queue.clear();
    if (m_job) m_job->cancel();  // its failed() says so and ends the download
}

void GetModelsDialog::show_progress(const downloads::DownloadProgress& progress) {
    m_progress->setRange(0, 1000);
    m_progress->setValue(
        progress.total > 0 ? static_cast<int>(1000 * progress.received / progress.total) : 0);
    QString text = tr("%1 of %2 · %3/s")
                       .arg(byte_size_text(progress.received), byte_size_text(progress.total),
                            byte_size_text(static_cast<uint64_t>(progress.bytes_per_second)));
    if (progress.seconds_left)
        text += QStringLiteral(" · ") + time_left_text(*progress.seconds_left);
    m_progress->setFormat(text);
    m_progress->setTextVisible(true);
}

void GetModelsDialog::show_error(const QString& text) {
    m_status->setText(text);
}

void GetModelsDialog::set_downloading(bool downloading) {
    m_pause->setText(tr("Pause"));
    m_pause->setEnabled(downloading);
    m_cancel->setEnabled(downloading);
    m_download->setEnabled(!downloading && selected_row() >= 0);
    if (!downloading) m_progress->reset();
}

int GetModelsDialog::selected_row() const {
    const auto rows = m_files->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.front().row();
}

void GetModelsDialog::save_token() {
    if (!m_setup.save_token) return;
    const QString token = m_token->text().trimmed();
    m_status->setText(tr("Saving the token…"));
    run_in_background(
        this, [save = m_setup.save_token, token] { return save(token); },
        [this](const QString& where) { m_status->setText(where); });
}

}  // namespace hearth::ui
