#include "tests/support/shared_data.h"

#include <QFile>
#include <QJsonDocument>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace hearth::test {

std::filesystem::path shared_dir() {
    if (const char* override_dir = std::getenv("HEARTH_SHARED_DIR")) return override_dir;
    return HEARTH_DEFAULT_SHARED_DIR;
}

std::filesystem::path model_path(const std::string& file_name) {
    return shared_dir() / "models" / file_name;
}

std::filesystem::path fixture_path(const std::string& relative) {
    return shared_dir() / "fixtures" / relative;
}

QJsonObject load_json(const std::filesystem::path& path) {
    QFile file(QString::fromStdString(path.string()));
    if (!file.open(QIODevice::ReadOnly)) throw std::runtime_error("cannot read " + path.string());
    QJsonParseError error{};
    const auto document = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError) {
        throw std::runtime_error(path.string() + ": " + error.errorString().toStdString());
    }
    return document.object();
}

std::vector<std::string> model_fixture_names() {
    std::vector<std::string> names;
    const auto directory = fixture_path("models");
    if (!std::filesystem::is_directory(directory)) return names;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<int32_t> to_ids(const QJsonArray& array) {
    std::vector<int32_t> ids;
    for (const auto& value : array) ids.push_back(value.toInt());
    return ids;
}

std::vector<float> to_floats(const QJsonArray& array) {
    std::vector<float> values;
    for (const auto& value : array) values.push_back(static_cast<float>(value.toDouble()));
    return values;
}

}  // namespace hearth::test
