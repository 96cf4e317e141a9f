#include "app/server/bearer_auth.h"

#include <cstddef>

namespace hearth::server {

bool bearer_matches(std::string_view authorization, std::string_view key) {
    constexpr std::string_view kScheme = "Bearer ";
    if (key.empty() || !authorization.starts_with(kScheme)) return false;
    const std::string_view given = authorization.substr(kScheme.size());
    // Every byte of the key is compared whatever the given length: only the length leaks.
    unsigned char difference = given.size() == key.size() ? 0 : 1;
    for (size_t i = 0; i < key.size(); ++i) {
        const char other = i < given.size() ? given[i] : '\0';
        difference |= static_cast<unsigned char>(other ^ key[i]);
    }
    return difference == 0;
}

}  // namespace hearth::server
