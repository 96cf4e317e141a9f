#include "bench/quant_recipe.h"

namespace hearth::bench {
namespace {

// llama.cpp's choice of the layers that get more bits: the first and last eighth, and every
// third one between.
bool more_bits(int layer, int layers) {
    return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
}

// K-quants need rows that are whole 256-element super-blocks; where they are not, llama-quantize
// falls back from Q4_K to Q5_0 and from Q6_K to Q8_0 (SmolLM's 576 columns, Gemma 3's 1152).
TensorType k_quant_or_fallback(TensorType wanted, uint64_t columns) {
    if (columns % 256 == 0) return wanted;
    return wanted == TensorType::Q6_K ? TensorType::Q8_0 : TensorType::Q5_0;
}

}  // namespace

std::optional<QuantMix> parse_quant_mix(std::string_view name) {
    if (name == "F16") return QuantMix::F16;
    if (name == "Q8_0") return QuantMix::Q8_0;
    if (name == "Q4_0") return QuantMix::Q4_0;
    if (name == "Q4_K_M") return QuantMix::Q4_K_M;
    return std::nullopt;
}

uint32_t file_type_id(QuantMix mix) {
    switch (mix) {
        case QuantMix::F16:
            return 1;
        case QuantMix::Q8_0:
            return 7;
        case QuantMix::Q4_0:
            return 2;
        case QuantMix::Q4_K_M:
            return 15;
    }
    return 0;
}

TensorType pick_type(QuantMix mix, const PlannedTensor& tensor, const SynthShape& shape) {
    if (tensor.role != TensorRole::Matrix) return TensorType::F32;
    // F16, Q8_0 and Q4_0 store every matrix in their type, the token embedding included, even
    // where it doubles as the output matrix: llama-quantize --pure. (Its default Q4_0 mix would
    // store the output matrix, or a tied embedding, as Q6_K, or Q8_0 for Gemma 3's rows.)
    if (mix == QuantMix::F16) return TensorType::F16;
    if (mix == QuantMix::Q8_0) return TensorType::Q8_0;
    if (mix == QuantMix::Q4_0) return TensorType::Q4_0;
    // Q4_K_M: Q6_K for the output matrix (a tied embedding is the output matrix), and for attn_v
    // and ffn_down (a mixture's stacked ffn_down_exps too) in the layers with more bits; Q4_K
    // elsewhere.
    const bool output =
        tensor.name == "output.weight" || (shape.tied_output && tensor.name == "token_embd.weight");
    const bool grows = tensor.name.ends_with("attn_v.weight") ||
                       tensor.name.ends_with("ffn_down.weight") ||
                       tensor.name.ends_with("ffn_down_exps.weight");
    const bool wants_q6 = output || (grows && more_bits(tensor.layer, shape.layers));
    return k_quant_or_fallback(wants_q6 ? TensorType::Q6_K : TensorType::Q4_K, tensor.columns);
}

}  // namespace hearth::bench
