// Access to the read-only shared models and fixtures (../shared beside the checkout, or
// $HEARTH_SHARED_DIR).
#pragma once

#include <QJsonArray>
#include <QJsonObject>

#include <filesystem>
#include <string>
#include <vector>

namespace hearth::test {

std::filesystem::path shared_dir();
std::filesystem::path model_path(const std::string& file_name);
std::filesystem::path fixture_path(const std::string& relative);
QJsonObject load_json(const std::filesystem::path& path);
// Names (without .json) of every model fixture, e.g. "synth-llama-256-Q8_0.f32math".
std::vector<std::string> model_fixture_names();

std::vector<int32_t> to_ids(const QJsonArray& array);
std::vector<float> to_floats(const QJsonArray& array);

}  // namespace hearth::test
