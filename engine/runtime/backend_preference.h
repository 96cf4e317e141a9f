// Which backend a front end asks for: the same words in the app's settings, on hearth-cli's
// command line and (later) in the server's configuration.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/compute/kv_cache_type.h"

namespace hearth {

struct BackendPreference {
    // Values are stored in settings as words (see to_string): do not rename them.
    enum class Kind {
        Automatic,  // a GPU that passes the start-up self-test against the CPU, else the CPU
        Cpu,        // the fast CPU backend
        Vulkan,     // a Vulkan device, whatever its type (lavapipe included when named)
        Reference,  // the float32 oracle
    };
    Kind kind = Kind::Automatic;
    std::optional<uint32_t> device;  // Vulkan: an index of vulkan::list_devices(); none: the best
    int threads = 0;                 // CPU: 0 for every hardware thread but `spare_threads`
    int spare_threads = 0;  // CPU with automatic threads: left free (e.g. for a GUI thread)
    std::string isa;        // CPU: scalar, avx2 or avx512-vnni for a lower level; empty: best
    KvCacheType kv_cache = KvCacheType::F16;  // CPU and Vulkan: how the KV cache stores entries
    // A stored setting that named no backend (a hand-edited file, an older version): the CPU
    // runs, and the selection's notice names the setting.
    std::string unknown_setting;
    // A named GPU that cannot be used: the CPU takes over with a notice (the app, whose user
    // must be able to chat), or the reason is thrown (hearth-cli, whose user named that device).
    // "Automatic" always falls back.
    bool fall_back_to_cpu = true;

    bool operator==(const BackendPreference&) const = default;
    // The CPU threads this preference asks for (0 never: at least one).
    int cpu_threads() const;
};

// "auto", "cpu", "reference", "vulkan" or "vulkan:N"; throws std::invalid_argument naming the
// choices for anything else.
BackendPreference parse_backend_preference(std::string_view text);
std::string to_string(const BackendPreference& preference);
// The same words as stored in a settings file, where a bad value must not stop the app: an
// unknown one becomes the CPU with `unknown_setting` set.
BackendPreference backend_preference_from_setting(std::string_view text);

}  // namespace hearth
