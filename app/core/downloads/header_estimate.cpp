#include "app/core/downloads/header_estimate.h"

#include <algorithm>
#include <memory>

#include "app/core/model_catalog.h"
#include "engine/format/gguf_file.h"
#include "engine/model/load_error.h"
#include "engine/model/system_memory.h"

namespace hearth::downloads {
namespace {

// One estimate in progress: the bytes read so far, asked for again with each larger range.
struct HeaderRead {
    HubClient& hub;
    QString repository;
    HubFile file;
    std::function<void(HubResult<HeaderEstimate>)> done;
    QByteArray bytes;
};

void read_more(std::shared_ptr<HeaderRead> read, qint64 wanted);

// Parses what has been read: the estimate, or the next range to ask for.
void try_parse(std::shared_ptr<HeaderRead> read) {
    const auto* begin = reinterpret_cast<const std::byte*>(read->bytes.constData());
    const GgufBeginning beginning{std::span(begin, static_cast<size_t>(read->bytes.size())),
                                  static_cast<uint64_t>(read->file.size),
                                  read->file.path.toStdString()};
    try {
        HeaderEstimate estimate{read_model_info(beginning), read->bytes.size()};
        read->done({std::move(estimate), std::nullopt});
    } catch (const GgufHeaderIncomplete& incomplete) {
        const qint64 wanted =
            std::max<qint64>(static_cast<qint64>(incomplete.needed), 2 * read->bytes.size());
        read_more(std::move(read), std::min(wanted, read->file.size));
    } catch (const LoadError& error) {
        read->done({{},
                    HubError{HubErrorKind::Integrity,
                             QStringLiteral("Hearth cannot load %1: %2")
                                 .arg(read->file.path, QString::fromStdString(error.what()))}});
    }
}

void read_more(std::shared_ptr<HeaderRead> read, qint64 wanted) {
    const qint64 first = read->bytes.size();
    if (wanted <= first) {
        read->done({{},
                    HubError{HubErrorKind::Integrity,
                             QStringLiteral("%1 ends before its GGUF header does: it is not a "
                                            "complete GGUF file.")
                                 .arg(read->file.path)}});
        return;
    }
    auto& hub = read->hub;
    const QString repository = read->repository;
    const QString path = read->file.path;
    hub.read_range(
        repository, path, first, wanted - 1,
        [read = std::move(read)](HubResult<QByteArray> result) mutable {
            if (!result.ok()) {
                read->done({{}, result.error});
                return;
            }
            if (result.value.isEmpty()) {
                read->done(
                    {{},
                     HubError{
                         HubErrorKind::Protocol,
                         QStringLiteral("The Hub sent no bytes of %1.").arg(read->file.path)}});
                return;
            }
            read->bytes.append(result.value);
            try_parse(std::move(read));
        });
}

}  // namespace

void estimate_from_header(HubClient& hub, const QString& repository, const HubFile& file,
                          std::function<void(HubResult<HeaderEstimate>)> done, qint64 first_read) {
    auto read =
        std::make_shared<HeaderRead>(HeaderRead{hub, repository, file, std::move(done), {}});
    read_more(std::move(read), std::min(first_read, file.size));
}

MemoryFit memory_fit(const ModelInfo& info, int requested_context) {
    MemoryFit fit;
    fit.context = core::chosen_context(info, requested_context);
    fit.needed = info.memory_bytes(fit.context);
    fit.available = available_memory_bytes();
    return fit;
}

}  // namespace hearth::downloads
