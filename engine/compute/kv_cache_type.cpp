#include "engine/compute/kv_cache_type.h"

#include <stdexcept>

#include "kernels/quant_blocks.h"

namespace hearth {

std::string_view to_string(KvCacheType type) {
    return type == KvCacheType::Q8_0 ? "q8_0" : "f16";
}

KvCacheType parse_kv_cache_type(std::string_view text) {
    if (text == "f16") return KvCacheType::F16;
    if (text == "q8_0") return KvCacheType::Q8_0;
    throw std::invalid_argument("unknown KV cache type '" + std::string(text) +
                                "' (choose f16 or q8_0)");
}

KvCacheType kv_cache_type_from_setting(std::string_view text) {
    return text == "q8_0" ? KvCacheType::Q8_0 : KvCacheType::F16;
}

KvCacheType effective_kv_cache_type(const ModelConfig& config, KvCacheType requested) {
    if (requested == KvCacheType::Q8_0 && config.head_dim % kernels::kBlock32 != 0) {
        return KvCacheType::F16;
    }
    return requested;
}

size_t kv_row_bytes(KvCacheType type, int kv_dim) {
    const auto values = static_cast<size_t>(kv_dim);
    if (type == KvCacheType::Q8_0) return values / kernels::kBlock32 * sizeof(kernels::BlockQ8_0);
    return values * sizeof(uint16_t);
}

}  // namespace hearth
