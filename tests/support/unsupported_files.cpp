#include "tests/support/unsupported_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "engine/model/model.h"
#include "tests/support/shared_data.h"

namespace hearth::test {
namespace {

bool is_word_character(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

const std::vector<UnsupportedFile>& unsupported_files() {
    // Hearth runs every shared model file now; an entry goes here when a new one it lacks
    // something for is added.
    static const std::vector<UnsupportedFile> files;
    return files;
}

const UnsupportedFile* find_unsupported(std::string_view file_name) {
    const auto& files = unsupported_files();
    const auto found = std::find_if(files.begin(), files.end(),
                                    [&](const auto& entry) { return entry.file == file_name; });
    return found == files.end() ? nullptr : &*found;
}

std::string model_file_of_fixture(std::string_view fixture) {
    constexpr std::string_view kRerun = ".f32math";
    if (fixture.ends_with(kRerun)) fixture.remove_suffix(kRerun.size());
    return std::string(fixture) + ".gguf";
}

bool names_whole_word(std::string_view message, std::string_view word) {
    for (size_t at = message.find(word); at != std::string_view::npos;
         at = message.find(word, at + 1)) {
        const size_t end = at + word.size();
        const bool starts_word = at == 0 || !is_word_character(message[at - 1]);
        const bool ends_word = end == message.size() || !is_word_character(message[end]);
        if (starts_word && ends_word) return true;
    }
    return false;
}

void expect_refused(const UnsupportedFile& entry, const std::function<void()>& attempt) {
    try {
        attempt();
    } catch (const std::exception& error) {
        EXPECT_TRUE(names_whole_word(error.what(), entry.missing))
            << entry.file << " was refused, but the error does not name '" << entry.missing
            << "': " << error.what();
        return;
    }
    ADD_FAILURE() << "Hearth now accepts " << entry.file << " (listed as lacking '" << entry.missing
                  << "'): remove it from tests/support/unsupported_files.cpp";
}

bool model_refused_as_listed(std::string_view fixture) {
    const std::string file = model_file_of_fixture(fixture);
    const auto* entry = find_unsupported(file);
    if (entry == nullptr) return false;
    expect_refused(*entry, [&] { const auto model = Model::load(model_path(file)); });
    return true;
}

}  // namespace hearth::test
