// The shared files (../shared) that Hearth does not support yet, each with the one thing it
// lacks. Tests that iterate over shared files check that Hearth refuses a listed file with an
// error naming that thing, and run their full checks on every other file. Once Hearth supports
// a file, its refusal check fails: that is the signal to delete its entry here.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::test {

enum class MissingKind { Architecture, WeightType, TemplateFeature };

struct UnsupportedFile {
    std::string_view file;     // a name in shared/models or shared/fixtures/chat_templates
    std::string_view missing;  // what the refusal must name: "qwen3", "Q2_K", "macro"
    MissingKind kind;
};

const std::vector<UnsupportedFile>& unsupported_files();

// The entry for `file_name` ("synth-qwen3-256.gguf", "gpt-oss.json"), or nullptr if Hearth
// supports the file.
const UnsupportedFile* find_unsupported(std::string_view file_name);

// The model file a model fixture describes: "synth-llama-256-Q2_K.f32math" ->
// "synth-llama-256-Q2_K.gguf".
std::string model_file_of_fixture(std::string_view fixture);

// Whether `message` holds `word` on its own, so that "qwen3" is not found in "qwen3moe".
bool names_whole_word(std::string_view message, std::string_view word);

// Runs `attempt` and records a gtest failure unless it throws an error naming
// `entry.missing`.
void expect_refused(const UnsupportedFile& entry, const std::function<void()>& attempt);

// For a listed model fixture: checks that loading its model is refused by name and returns
// true. Returns false, checking nothing, for a supported one.
bool model_refused_as_listed(std::string_view fixture);

}  // namespace hearth::test
