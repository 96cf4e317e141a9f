#include "engine/backend_factory.h"

#include <algorithm>
#include <stdexcept>

#include "engine/cpu_backend.h"

namespace hearth {

int default_context_length(const ModelConfig& config) {
    return std::min(config.context_length, kDefaultContextCap);
}

std::unique_ptr<Backend> make_backend(const std::string& name, const Model& model, int threads) {
    if (name == "cpu")
        return std::make_unique<CpuBackend>(model, CpuBackendOptions{.threads = threads});
    if (name == "reference") return std::make_unique<ReferenceBackend>(model);
    throw std::invalid_argument("unknown backend '" + name + "' (choose cpu or reference)");
}

}  // namespace hearth
