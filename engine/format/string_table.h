// Many strings in one character buffer, with where each ends. A vocabulary of 262,144 tokens
// then costs its characters and 8 bytes a token, where a std::string each costs 32 bytes and a
// heap block for every token longer than 15 bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hearth {

class StringTable {
public:
    size_t size() const { return m_ends.size(); }
    bool empty() const { return m_ends.empty(); }

    // A view that lasts until the table changes; `index` must be below size().
    std::string_view operator[](size_t index) const {
        const size_t begin = start(index);
        return std::string_view(m_characters).substr(begin, m_ends[index] - begin);
    }
    // The same, with std::out_of_range past the end.
    std::string_view at(size_t index) const;

    void push_back(std::string_view text);
    // Replaces string `index` (std::out_of_range past the end); the strings after it move.
    void set(size_t index, std::string_view text);
    void reserve(size_t count, size_t characters);

    bool operator==(const StringTable& other) const = default;

private:
    size_t start(size_t index) const { return index == 0 ? 0 : m_ends[index - 1]; }
    void check_index(size_t index) const;

    std::string m_characters;
    std::vector<uint64_t> m_ends;  // where each string ends in m_characters
};

}  // namespace hearth
