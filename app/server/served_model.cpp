#include "app/server/served_model.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>

#include "app/gguf_files.h"
#include "app/server/json_text.h"
#include "engine/format/split_name.h"

namespace hearth::server {
namespace {

using jinja::Value;

bool same_name(const std::string& a, const std::string& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) ==
               std::tolower(static_cast<unsigned char>(y));
    });
}

int64_t modification_time(const std::filesystem::path& file) {
    std::error_code error;
    const auto written = std::filesystem::last_write_time(file, error);
    if (error) return 0;
    const auto system = std::chrono::file_clock::to_sys(written);
    return std::chrono::duration_cast<std::chrono::seconds>(system.time_since_epoch()).count();
}

Value model_entry(const std::string& id, int64_t created) {
    jinja::Object entry;
    entry.set("id", Value(id));
    entry.set("object", Value("model"));
    entry.set("created", Value(created));
    entry.set("owned_by", Value("hearth"));
    return Value(std::move(entry));
}

// A model's id: its file name without ".gguf", and a split model's without its part numbers
// ("big" for big-00001-of-00002.gguf), since its parts are one model.
std::string model_id(const std::filesystem::path& file) {
    if (const auto split = parse_split_name(file)) return split->prefix.filename().string();
    return file.stem().string();
}

bool names_file(const std::filesystem::path& file, const std::string& name) {
    return same_name(model_id(file), name) || same_name(file.stem().string(), name) ||
           same_name(file.filename().string(), name);
}

}  // namespace

ServedModel served_model(const ModelInfo& info) {
    ServedModel served;
    served.id = model_id(info.path);
    served.names = {served.id, info.path.stem().string(), info.path.filename().string()};
    if (!info.name.empty()) served.names.push_back(info.name);
    served.created = modification_time(info.path);
    return served;
}

bool names_served(const ServedModel& served, const std::optional<std::string>& requested) {
    if (!requested) return true;
    return std::any_of(served.names.begin(), served.names.end(),
                       [&](const std::string& name) { return same_name(name, *requested); });
}

ApiError unknown_model(const ServedModel& served, const std::string& requested,
                       const std::vector<std::filesystem::path>& catalog) {
    const bool in_catalog = std::any_of(catalog.begin(), catalog.end(), [&](const auto& file) {
        return names_file(file, requested);
    });
    const std::string runs = "this server runs '" + served.id + "'";
    const std::string message =
        in_catalog ? "the model '" + requested + "' is in Hearth's models folder but not loaded; " +
                         runs + " (start hearth-server -m with that file to serve it)"
                   : "the model '" + requested + "' does not exist here; " + runs;
    return ApiError(404, "invalid_request_error", message, "model", "model_not_found");
}

std::string models_body(const ServedModel& served,
                        const std::vector<std::filesystem::path>& catalog) {
    jinja::Array data{model_entry(served.id, served.created)};
    for (const auto& file : catalog) {
        data.push_back(model_entry(model_id(file), modification_time(file)));
    }
    jinja::Object body;
    body.set("object", Value("list"));
    body.set("data", Value(std::move(data)));
    return compact_json(Value(std::move(body)));
}

std::string model_body(const ServedModel& served) {
    return compact_json(model_entry(served.id, served.created));
}

std::filesystem::path hearth_models_folder() {
    std::filesystem::path data;
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) {
        data = xdg;
    } else if (const char* home = std::getenv("HOME"); home && *home) {
        data = std::filesystem::path(home) / ".local/share";
    }
    return data.empty() ? data : data / "Hearth/Hearth/models";
}

std::vector<std::filesystem::path> catalog_files(const std::filesystem::path& folder,
                                                 const std::filesystem::path& served_file) {
    std::vector<std::filesystem::path> files;
    if (folder.empty()) return files;
    find_gguf_files(folder, files);
    std::error_code error;
    const auto served = std::filesystem::weakly_canonical(served_file, error);
    std::erase_if(files, [&](const auto& file) {
        std::error_code ignored;
        return std::filesystem::weakly_canonical(file, ignored) == served;
    });
    return files;
}

}  // namespace hearth::server
