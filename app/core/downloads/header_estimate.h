// The memory a model on the Hub would need, before downloading it: its GGUF header read with
// HTTP Range requests (only the header's bytes, never the whole file), then the same estimate
// the model picker shows for files on disk, and whether it fits this machine's free memory.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "app/core/downloads/hub_client.h"
#include "engine/model/model_info.h"

namespace hearth::downloads {

struct HeaderEstimate {
    ModelInfo info;         // every figure read_model_info gives for the whole model
    qint64 bytes_read = 0;  // how many of the file's bytes it took (every part's, when split)
};

// The first request asks for this many bytes; each next one doubles what has been read.
inline constexpr qint64 kFirstHeaderRead = 64 * 1024;

// Reads `file`'s header from the Hub; `done` gets the estimate, or why there is none (a network
// error, or a LoadError's text for a file Hearth cannot load).
void estimate_from_header(HubClient& hub, const QString& repository, const HubFile& file,
                          std::function<void(HubResult<HeaderEstimate>)> done,
                          qint64 first_read = kFirstHeaderRead);

// The same for a model split into parts (every part, first first; one for a single file): each
// part's header is read in turn, and the estimate is of all parts' tensors together, as the
// picker gives it once every part is downloaded. `bytes_read` counts every part's bytes.
void estimate_from_headers(HubClient& hub, const QString& repository,
                           const std::vector<HubFile>& parts,
                           std::function<void(HubResult<HeaderEstimate>)> done,
                           qint64 first_read = kFirstHeaderRead);

// A model's memory at a context length against what the system has free.
struct MemoryFit {
    int context = 0;  // the length the estimate is for
    uint64_t needed = 0;
    std::optional<uint64_t> available;  // MemAvailable; nullopt where it cannot be read

    bool fits() const { return available && needed <= *available; }
};

// `requested_context` as the picker takes it: 0 for the model's own length, capped.
MemoryFit memory_fit(const ModelInfo& info, int requested_context);

}  // namespace hearth::downloads
