#include "app/cli_download.h"

#include <fmt/format.h>

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>

#include <optional>
#include <ostream>

#include "app/core/downloads/disk_space.h"
#include "app/core/downloads/download_job.h"
#include "app/core/downloads/gguf_choices.h"
#include "app/core/downloads/header_estimate.h"
#include "app/core/downloads/repository_reference.h"
#include "app/core/model_catalog.h"

namespace hearth {
namespace {

using downloads::HubResult;

// Runs `start` and the event loop until it calls back.
template <typename T>
HubResult<T> wait_for(const std::function<void(std::function<void(HubResult<T>)>)>& start) {
    std::optional<HubResult<T>> result;
    QEventLoop loop;
    start([&](HubResult<T> answer) {
        result = std::move(answer);
        loop.quit();
    });
    if (!result) loop.exec();
    return std::move(*result);
}

std::string text(const QString& value) {
    return value.toStdString();
}

std::string size(qint64 bytes) {
    return text(downloads::size_text(bytes));
}

// The choice the reference names, or nullptr after saying why there is none.
const downloads::GgufChoice* choose(const std::vector<downloads::GgufChoice>& choices,
                                    const downloads::RepositoryReference& reference,
                                    std::ostream& log, int& status) {
    if (choices.empty()) {
        log << fmt::format("hearth-cli: {} has no GGUF files\n", text(reference.repository));
        status = 1;
        return nullptr;
    }
    if (reference.file.isEmpty() && choices.size() == 1) return &choices.front();
    const auto* choice =
        reference.file.isEmpty() ? nullptr : downloads::find_choice(choices, reference.file);
    if (choice == nullptr) {
        log << fmt::format(
            "hearth-cli: {} {}; choose one with {}:FILE:\n", text(reference.repository),
            reference.file.isEmpty() ? "has several GGUF models"
                                     : fmt::format("has no GGUF file {}", text(reference.file)),
            text(reference.repository));
        for (const auto& each : choices) {
            log << fmt::format(
                "  {}  {}{}\n", text(each.parts.front().path), size(each.total_bytes()),
                each.split() ? fmt::format(" in {} parts", each.declared_parts) : std::string());
        }
        status = reference.file.isEmpty() ? 2 : 1;
    }
    return choice;
}

void print_estimate(downloads::HubClient& hub, const QString& repository,
                    const downloads::GgufChoice& choice, int context, std::ostream& log) {
    const auto estimate = wait_for<downloads::HeaderEstimate>([&](auto done) {
        downloads::estimate_from_headers(hub, repository, choice.parts, std::move(done));
    });
    if (!estimate.ok()) {
        log << fmt::format("memory: no estimate: {}\n", text(estimate.error->text));
        return;
    }
    const auto fit = downloads::memory_fit(estimate.value.info, context);
    log << fmt::format("memory: {} at a context of {} tokens ({}; read {} of {})\n",
                       size(static_cast<qint64>(fit.needed)), fit.context,
                       fit.available
                           ? fmt::format("{} free: {}", size(static_cast<qint64>(*fit.available)),
                                         fit.fits() ? "fits" : "does not fit")
                           : std::string("free memory unknown"),
                       size(estimate.value.bytes_read),
                       choice.split() ? fmt::format("the {} parts' headers", choice.parts.size())
                                      : std::string("the file's header"));
}

// Downloads one file, printing progress; the error's text when it fails.
std::optional<QString> download_file(downloads::HubClient& hub, const QString& repository,
                                     const downloads::HubFile& file, const QString& folder,
                                     std::ostream& log) {
    downloads::DownloadJob job(hub, repository, file, folder);
    std::optional<QString> error;
    QEventLoop loop;
    QObject::connect(&job, &downloads::DownloadJob::progressed,
                     [&](const downloads::DownloadProgress& progress) {
                         log << fmt::format("\r{}: {} of {} ({}/s)   ", text(file.path),
                                            size(progress.received), size(progress.total),
                                            size(static_cast<qint64>(progress.bytes_per_second)))
                             << std::flush;
                     });
    QObject::connect(&job, &downloads::DownloadJob::finished, &loop, &QEventLoop::quit);
    QObject::connect(&job, &downloads::DownloadJob::failed,
                     [&](const downloads::HubError& failure) {
                         error = failure.text;
                         loop.quit();
                     });
    job.start();
    if (job.state() == downloads::DownloadState::Running) loop.exec();
    log << "\n";
    return error;
}

}  // namespace

int run_download(const CliOptions& options, std::ostream& out, std::ostream& log) {
    int argc = 1;
    char name[] = "hearth-cli";
    char* argv[] = {name, nullptr};
    const QCoreApplication application(argc, argv);
    const auto reference =
        downloads::parse_repository_reference(QString::fromStdString(options.download));
    if (!reference) {
        throw std::invalid_argument("--download needs REPO[:FILE], e.g. owner/name:file.gguf; '" +
                                    options.download + "' is not one");
    }
    downloads::HubClient hub(downloads::hub_settings_from_environment());
    const auto files = wait_for<std::vector<downloads::HubFile>>(
        [&](auto done) { hub.list_files(reference->repository, std::move(done)); });
    if (!files.ok()) {
        log << "hearth-cli: " << text(files.error->text) << "\n";
        return 1;
    }
    const auto choices = downloads::gguf_choices(files.value);
    int status = 0;
    const auto* choice = choose(choices, *reference, log, status);
    if (choice == nullptr) return status;
    if (!choice->complete()) {
        log << fmt::format("hearth-cli: {} lists {} of the {} parts of {}\n",
                           text(reference->repository), choice->parts.size(),
                           choice->declared_parts, text(choice->name));
        return 1;
    }
    const QString folder = options.download_dir.empty()
                               ? core::own_models_folder()
                               : QString::fromStdString(options.download_dir);
    print_estimate(hub, reference->repository, *choice, options.context_length, log);
    qint64 missing = 0;
    for (const auto& part : choice->parts) {
        if (!QFileInfo::exists(QDir(folder).filePath(part.path.section('/', -1))))
            missing += part.size;
    }
    if (auto error = downloads::check_disk_space(folder, missing)) {
        log << "hearth-cli: " << text(error->text) << "\n";
        return 1;
    }
    for (const auto& part : choice->parts) {
        if (auto error = download_file(hub, reference->repository, part, folder, log)) {
            log << "hearth-cli: " << text(*error) << "\n";
            return 1;
        }
        out << text(QDir(folder).filePath(part.path.section('/', -1))) << "\n";
    }
    return 0;
}

}  // namespace hearth
