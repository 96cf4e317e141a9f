// Picks a backend by name, for the command line and the app's settings.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/compute/backend.h"
#include "engine/compute/kv_cache_type.h"
#include "engine/model/model.h"

namespace hearth {

// A sensible default context for a model: its trained length, capped where the KV cache would
// grow beyond what a desktop should spend without being asked.
inline constexpr int kDefaultContextCap = 4096;
int default_context_length(const ModelConfig& config);

struct BackendChoice {
    std::string name = "cpu";  // cpu (the fast path), vulkan (a GPU), reference (the oracle)
    int threads = 0;           // cpu: 0 for one per hardware thread
    std::string isa;           // cpu: scalar, avx2 or avx512-vnni; empty for the best
    // vulkan: a device index from vulkan::list_devices() (any type, lavapipe included), or
    // none for the best GPU.
    std::optional<uint32_t> device;
    std::filesystem::path pipeline_cache;     // vulkan: compiled pipelines kept between runs
    KvCacheType kv_cache = KvCacheType::F16;  // cpu and vulkan (the reference keeps float)
    std::function<bool(size_t done, size_t total)> progress;  // vulkan: weight upload
};

// Throws std::invalid_argument for an unknown name, naming the choices; the vulkan backend's
// errors (no driver, no GPU, out of device memory) as VulkanError.
std::unique_ptr<Backend> make_backend(const BackendChoice& choice, const Model& model);

// Where Hearth keeps the Vulkan pipeline cache: $XDG_CACHE_HOME/hearth (or ~/.cache/hearth).
std::filesystem::path default_pipeline_cache();

}  // namespace hearth
