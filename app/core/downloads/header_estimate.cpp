#include "app/core/downloads/header_estimate.h"

#include <algorithm>
#include <memory>

#include "app/core/model_catalog.h"
#include "engine/format/gguf_file.h"
#include "engine/model/load_error.h"
#include "engine/model/system_memory.h"

namespace hearth::downloads {
namespace {

// One estimate in progress: each part's bytes read so far, the part being read asked for again
// with each larger range until its header is whole, then the next part.
struct HeaderRead {
    HubClient& hub;
    QString repository;
    std::vector<HubFile> parts;
    std::function<void(HubResult<HeaderEstimate>)> done;
    qint64 first_read = kFirstHeaderRead;
    std::vector<QByteArray> bytes;  // of the parts begun, first first

    const HubFile& file() const { return parts[bytes.size() - 1]; }
};

void read_more(std::shared_ptr<HeaderRead> read, qint64 wanted);

void begin_next_part(std::shared_ptr<HeaderRead> read) {
    read->bytes.emplace_back();
    read_more(read, std::min(read->first_read, read->file().size));
}

std::vector<GgufBeginning> beginnings(const HeaderRead& read) {
    std::vector<GgufBeginning> result;
    for (size_t index = 0; index < read.bytes.size(); ++index) {
        const auto& bytes = read.bytes[index];
        const auto* begin = reinterpret_cast<const std::byte*>(bytes.constData());
        result.push_back({std::span(begin, static_cast<size_t>(bytes.size())),
                          static_cast<uint64_t>(read.parts[index].size),
                          read.parts[index].path.toStdString()});
    }
    return result;
}

qint64 bytes_read(const HeaderRead& read) {
    qint64 total = 0;
    for (const auto& bytes : read.bytes) total += bytes.size();
    return total;
}

// Parses what has been read: the estimate, the next range to ask for, or the next part.
void try_parse(std::shared_ptr<HeaderRead> read) {
    const auto read_so_far = beginnings(*read);
    try {
        if (read->bytes.size() < read->parts.size()) {
            // Only whether this part's header is whole: the model is checked once all are.
            const GgufFile part(read_so_far.back());
            begin_next_part(std::move(read));
            return;
        }
        HeaderEstimate estimate{read_model_info(read_so_far), bytes_read(*read)};
        read->done({std::move(estimate), std::nullopt});
    } catch (const GgufHeaderIncomplete& incomplete) {
        const qint64 wanted =
            std::max<qint64>(static_cast<qint64>(incomplete.needed), 2 * read->bytes.back().size());
        read_more(std::move(read), std::min(wanted, read->file().size));
    } catch (const LoadError& error) {
        read->done(
            {{},
             HubError{HubErrorKind::Integrity,
                      QStringLiteral("Hearth cannot load %1: %2")
                          .arg(read->parts.front().path, QString::fromStdString(error.what()))}});
    }
}

void read_more(std::shared_ptr<HeaderRead> read, qint64 wanted) {
    const qint64 first = read->bytes.back().size();
    if (wanted <= first) {
        read->done({{},
                    HubError{HubErrorKind::Integrity,
                             QStringLiteral("%1 ends before its GGUF header does: it is not a "
                                            "complete GGUF file.")
                                 .arg(read->file().path)}});
        return;
    }
    auto& hub = read->hub;
    const QString repository = read->repository;
    const QString path = read->file().path;
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
                         QStringLiteral("The Hub sent no bytes of %1.").arg(read->file().path)}});
                return;
            }
            read->bytes.back().append(result.value);
            try_parse(std::move(read));
        });
}

}  // namespace

void estimate_from_header(HubClient& hub, const QString& repository, const HubFile& file,
                          std::function<void(HubResult<HeaderEstimate>)> done, qint64 first_read) {
    estimate_from_headers(hub, repository, {file}, std::move(done), first_read);
}

void estimate_from_headers(HubClient& hub, const QString& repository,
                           const std::vector<HubFile>& parts,
                           std::function<void(HubResult<HeaderEstimate>)> done, qint64 first_read) {
    if (parts.empty()) {
        done(
            {{},
             HubError{
                 HubErrorKind::Protocol,
                 QStringLiteral("There is no file in %1 to read a header from.").arg(repository)}});
        return;
    }
    auto read = std::make_shared<HeaderRead>(
        HeaderRead{hub, repository, parts, std::move(done), first_read, {}});
    begin_next_part(std::move(read));
}

MemoryFit memory_fit(const ModelInfo& info, int requested_context) {
    MemoryFit fit;
    fit.context = core::chosen_context(info, requested_context);
    fit.needed = info.memory_bytes(fit.context);
    fit.available = available_memory_bytes();
    return fit;
}

}  // namespace hearth::downloads
