// How a backend stores the keys and values of its KV cache: F16 (IEEE half per value), or Q8_0
// (GGUF's Q8_0 blocks along the head: 32 values and one f16 scale in 34 bytes, 0.53 of F16's
// memory). The reference pass keeps float whatever is asked: it is the textbook oracle.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/model/model.h"

namespace hearth {

// Values are stored in settings as words (see to_string): do not rename them.
enum class KvCacheType { F16, Q8_0 };

// "f16" or "q8_0".
std::string_view to_string(KvCacheType type);
// The words of to_string; throws std::invalid_argument naming the choices for anything else.
KvCacheType parse_kv_cache_type(std::string_view text);
// The same words as stored in a settings file, where a bad value (a hand-edited file) must not
// stop the app: anything else is F16, the cache every model can have.
KvCacheType kv_cache_type_from_setting(std::string_view text);

// The type a model's cache gets when `requested` is asked for: Q8_0 blocks run along a head, so
// a model whose heads are not whole blocks (the tiny test models' 4 or 8 dimensions) keeps F16.
KvCacheType effective_kv_cache_type(const ModelConfig& config, KvCacheType requested);

// Bytes of one position's keys (or values) in a layer of `kv_dim` values; kv_dim is a whole
// number of blocks for Q8_0.
size_t kv_row_bytes(KvCacheType type, int kv_dim);

}  // namespace hearth
