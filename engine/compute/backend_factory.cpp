#include "engine/compute/backend_factory.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "engine/compute/cpu_backend.h"
#include "engine/compute/reference_backend.h"
#include "engine/compute/vulkan/vulkan_backend.h"

namespace hearth {

int default_context_length(const ModelConfig& config) {
    return std::min(config.context_length, kDefaultContextCap);
}

std::unique_ptr<Backend> make_backend(const BackendChoice& choice, const Model& model) {
    if (choice.name == "cpu") {
        CpuBackendOptions options{.threads = choice.threads, .kv_cache = choice.kv_cache};
        if (!choice.isa.empty()) options.isa = kernels::parse_isa(choice.isa);
        return std::make_unique<CpuBackend>(model, options);
    }
    if (choice.name == "vulkan") {
        return std::make_unique<VulkanBackend>(
            model, VulkanBackendOptions{.device = choice.device,
                                        .pipeline_cache = choice.pipeline_cache,
                                        .kv_cache = choice.kv_cache,
                                        .progress = choice.progress});
    }
    if (choice.name == "reference") return std::make_unique<ReferenceBackend>(model);
    throw std::invalid_argument("unknown backend '" + choice.name +
                                "' (choose cpu, vulkan or reference)");
}

std::filesystem::path default_pipeline_cache() {
    std::filesystem::path base;
    if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache != '\0') {
        base = cache;
    } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
        base = std::filesystem::path(home) / ".cache";
    } else {
        return {};
    }
    return base / "hearth" / "vulkan-pipelines.bin";
}

}  // namespace hearth
