#include "engine/format/string_table.h"

#include <stdexcept>

namespace hearth {

std::string_view StringTable::at(size_t index) const {
    check_index(index);
    return (*this)[index];
}

void StringTable::check_index(size_t index) const {
    if (index >= size()) {
        throw std::out_of_range("string " + std::to_string(index) + " of a table of " +
                                std::to_string(size()));
    }
}

// std::string's append and replace allow text from the string itself, so a view of this
// table's own characters may be stored again.
void StringTable::push_back(std::string_view text) {
    m_characters.append(text);
    m_ends.push_back(m_characters.size());
}

void StringTable::set(size_t index, std::string_view text) {
    check_index(index);
    const size_t begin = start(index);
    const size_t old_length = m_ends[index] - begin;
    m_characters.replace(begin, old_length, text);
    for (size_t later = index; later < m_ends.size(); ++later)
        m_ends[later] = m_ends[later] - old_length + text.size();
}

void StringTable::reserve(size_t count, size_t characters) {
    m_ends.reserve(count);
    m_characters.reserve(characters);
}

}  // namespace hearth
