// Get models…: search Hugging Face's Hub by name (or paste a repository id or address), list a
// repository's GGUF models with size and quantisation and, before downloading, the memory
// Hearth would need at the chosen context and whether it fits this machine, read from the
// file's header alone; then download into the models folder with progress, pause, resume and
// cancel. The network is used only when the user asks here.
#pragma once

#include <QDialog>

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "app/core/downloads/download_job.h"
#include "app/core/downloads/gguf_choices.h"
#include "app/core/downloads/header_estimate.h"
#include "app/core/downloads/hub_client.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace hearth::ui {

class GetModelsDialog final : public QDialog {
    Q_OBJECT

public:
    enum Column { kModel, kSize, kQuantization, kMemory, kFits, kColumns };

    struct Setup {
        downloads::HubSettings hub = downloads::hub_settings_from_environment();
        QString folder;  // where models are downloaded to (the catalog's own models folder)
        int requested_context = 0;  // 0: each model's own length, capped as a load caps it
        // The access token kept in the keyring; either may be empty (no keyring here).
        std::function<QString()> load_token;
        std::function<QString(const QString& token)> save_token;  // says where it went

        // The models folder, and the token in the system keyring (core::ApiKeyStore).
        static Setup for_this_machine(int requested_context);
    };

    explicit GetModelsDialog(Setup setup, QWidget* parent = nullptr);
    ~GetModelsDialog() override;

signals:
    void modelDownloaded(const QString& path);

private:
    QLayout* make_search_row();
    QLayout* make_download_row();
    void search();
    void open_repository(const QString& repository, const QString& file);
    void show_choices(std::vector<downloads::GgufChoice> choices, const QString& file);
    void show_selection_status();
    void estimate_selected();
    void show_estimate(int row);
    void download_selected();
    void start_next_part();
    void toggle_pause();
    void cancel_download();
    void show_progress(const downloads::DownloadProgress& progress);
    void show_error(const QString& text);
    void set_downloading(bool downloading);
    int selected_row() const;
    void save_token();

    Setup m_setup;
    downloads::HubClient m_hub;
    QString m_repository;  // whose files are listed
    std::vector<downloads::GgufChoice> m_choices;
    std::map<int, downloads::HeaderEstimate> m_estimates;  // by row, once read
    std::unique_ptr<downloads::DownloadJob> m_job;
    std::vector<downloads::HubFile> m_queue;  // parts still to download
    int m_generation = 0;  // bumps on each listing, so late estimates of an old one are dropped

    QLineEdit* m_query = nullptr;
    QListWidget* m_results = nullptr;
    QTableWidget* m_files = nullptr;
    QSpinBox* m_context = nullptr;
    QLineEdit* m_token = nullptr;
    QPushButton* m_download = nullptr;
    QPushButton* m_pause = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
};

// Opens the dialog for this machine (see Setup::for_this_machine); `downloaded` runs after each
// model that arrives, so that the caller lists it.
void open_get_models_dialog(QWidget* parent, int requested_context,
                            const std::function<void()>& downloaded);

// "3 min 20 s left", "45 s left".
QString time_left_text(double seconds);

}  // namespace hearth::ui
