// Which model the server answers with, how a request may name it, and what GET /v1/models
// lists. One model is loaded; a request's `model` must name it (or be left out). The names that
// do, compared without regard to case: the id /v1/models lists (the file name without .gguf),
// the file name, and the model's own name from its metadata (general.name). No other aliases
// ("gpt-4o", "default"): a client that names a model it does not get would be misled. A name
// that matches a file in Hearth's models folder that is not loaded is still refused (404), and
// the message says which model this server runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/server/api_error.h"
#include "engine/model/model_info.h"

namespace hearth::server {

struct ServedModel {
    std::string id;  // what /v1/models lists first and every response's `model` says
    std::vector<std::string> names;  // what a request's `model` may say
    int64_t created = 0;             // the file's modification time, Unix seconds
};

ServedModel served_model(const ModelInfo& info);

// True when `requested` is unset or names the served model.
bool names_served(const ServedModel& served, const std::optional<std::string>& requested);

// The 404 (model_not_found) for a request naming another model, saying which one this server
// runs and whether the name is a file of the catalog that is not loaded.
ApiError unknown_model(const ServedModel& served, const std::string& requested,
                       const std::vector<std::filesystem::path>& catalog);

// {"object": "list", "data": [...]}: the served model first, then every catalog file by its id,
// each {"id", "object": "model", "created", "owned_by"}.
std::string models_body(const ServedModel& served,
                        const std::vector<std::filesystem::path>& catalog);

// {"id", "object": "model", "created", "owned_by"} for the served model (GET /v1/models/ID).
std::string model_body(const ServedModel& served);

// Hearth's own models folder, where the app keeps downloaded models: $XDG_DATA_HOME (or
// ~/.local/share) + /Hearth/Hearth/models, as Qt's AppDataLocation names it for the app. The
// server reads it without Qt; the folders the app's settings add are not read.
std::filesystem::path hearth_models_folder();

// The .gguf files under `folder`, the served file left out.
std::vector<std::filesystem::path> catalog_files(const std::filesystem::path& folder,
                                                 const std::filesystem::path& served_file);

}  // namespace hearth::server
