#include "engine/format/split_name.h"

#include <cctype>
#include <string>

namespace hearth {
namespace {

constexpr size_t kDigits = 5;

std::optional<int> five_digits(const std::string& text, size_t at) {
    int value = 0;
    for (size_t i = at; i < at + kDigits; ++i) {
        if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) return std::nullopt;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

std::string padded(int value) {
    std::string digits = std::to_string(value);
    return std::string(digits.size() < kDigits ? kDigits - digits.size() : 0, '0') + digits;
}

}  // namespace

std::optional<SplitName> parse_split_name(const std::filesystem::path& path) {
    // "-00001-of-00003.gguf": a dash, five digits, "-of-", five digits, ".gguf".
    const std::string name = path.filename().string();
    const std::string suffix = ".gguf";
    const size_t tail = 1 + kDigits + 4 + kDigits + suffix.size();
    if (name.size() <= tail) return std::nullopt;
    const size_t start = name.size() - tail;
    if (name[start] != '-' || name.compare(start + 1 + kDigits, 4, "-of-") != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        return std::nullopt;
    }
    const auto number = five_digits(name, start + 1);
    const auto count = five_digits(name, start + 1 + kDigits + 4);
    if (!number || !count || *number < 1 || *number > *count) return std::nullopt;
    return SplitName{path.parent_path() / name.substr(0, start), *number, *count};
}

std::filesystem::path split_part_path(const std::filesystem::path& prefix, int number, int count) {
    return prefix.parent_path() /
           (prefix.filename().string() + "-" + padded(number) + "-of-" + padded(count) + ".gguf");
}

uintmax_t split_set_size(const std::filesystem::path& path) {
    std::error_code error;
    const auto name = parse_split_name(path);
    if (!name || name->number != 1) {
        const auto size = std::filesystem::file_size(path, error);
        return error ? 0 : size;
    }
    uintmax_t total = 0;
    for (int number = 1; number <= name->count; ++number) {
        const auto size =
            std::filesystem::file_size(split_part_path(name->prefix, number, name->count), error);
        if (!error) total += size;
    }
    return total;
}

}  // namespace hearth
