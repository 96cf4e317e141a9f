// hearth-synth-model: writes full-size random-weight GGUF models (N(0, 0.02) matrices, norms of
// 1.0) of the shapes benchmarks compare on, so no benchmark needs a download.
//   hearth-synth-model SHAPE TYPE OUT.gguf     SHAPE: tinyllama-1.1b | smollm-135m
//                                              TYPE:  F16 | Q8_0 | Q4_0 | Q4_K_M
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <map>
#include <numbers>
#include <string>

#include "engine/format/gguf_writer.h"
#include "kernels/quantize.h"

namespace {

struct Shape {
    int layers, embedding, heads, kv_heads, ffn, vocab;
};

const std::map<std::string, Shape> kShapes{
    {"tinyllama-1.1b", {22, 2048, 32, 4, 5632, 32000}},
    {"smollm-135m", {30, 576, 9, 3, 1536, 32000}},
};

// xorshift128+ and Box-Muller: fast enough to fill a billion weights in seconds, and the same
// bytes on every machine for the same seed.
class Normal {
public:
    explicit Normal(uint64_t seed)
        : m_a(seed * 0x9e3779b97f4a7c15ull + 1), m_b(seed ^ 0xda942042e4dd58b5ull) {}
    float next(float sigma) {
        if (m_has_spare) {
            m_has_spare = false;
            return m_spare * sigma;
        }
        const double u = (static_cast<double>(bits() >> 11) + 0.5) * 0x1.0p-53;
        const double v = static_cast<double>(bits() >> 11) * 0x1.0p-53;
        const double radius = std::sqrt(-2.0 * std::log(u));
        m_spare = static_cast<float>(radius * std::sin(2 * std::numbers::pi * v));
        m_has_spare = true;
        return static_cast<float>(radius * std::cos(2 * std::numbers::pi * v)) * sigma;
    }

private:
    uint64_t bits() {
        uint64_t x = m_a;
        const uint64_t y = m_b;
        m_a = y;
        x ^= x << 23;
        m_b = x ^ y ^ (x >> 17) ^ (y >> 26);
        return m_b + y;
    }
    uint64_t m_a, m_b;
    float m_spare = 0.0f;
    bool m_has_spare = false;
};

// llama.cpp's Q4_K_M recipe: Q6_K for the output and for attn_v/ffn_down in the first and last
// eighth of the layers and every third one between; Q4_K elsewhere. K-quants need rows that
// are multiples of 256; other rows fall back as llama.cpp does (Q4_K -> Q5_0 is not written
// here, so they fall back to Q8_0, noted on stderr).
hearth::TensorType pick_type(const std::string& type, const std::string& name, int layer,
                             int layers, uint64_t columns) {
    using hearth::TensorType;
    if (type == "F16") return TensorType::F16;
    if (type == "Q8_0") return TensorType::Q8_0;
    if (type == "Q4_0") return TensorType::Q4_0;
    const bool more_bits = layer >= 0 && (layer < layers / 8 || layer >= 7 * layers / 8 ||
                                          (layer - layers / 8) % 3 == 2);
    const bool wants_q6 =
        name == "output.weight" || (more_bits && (name.find("attn_v") != std::string::npos ||
                                                  name.find("ffn_down") != std::string::npos));
    if (columns % 256 != 0) return TensorType::Q8_0;
    return wants_q6 ? TensorType::Q6_K : TensorType::Q4_K;
}

std::vector<std::byte> encode(hearth::TensorType type, const std::vector<float>& values) {
    std::vector<std::byte> bytes(hearth::tensor_bytes(type, values.size()));
    using namespace hearth::kernels;
    switch (type) {
        case hearth::TensorType::F32:
            std::memcpy(bytes.data(), values.data(), bytes.size());
            break;
        case hearth::TensorType::F16:
            quantize_f16(values.data(), bytes.data(), values.size());
            break;
        case hearth::TensorType::Q8_0:
            quantize_q8_0(values.data(), bytes.data(), values.size());
            break;
        case hearth::TensorType::Q4_0:
            quantize_q4_0(values.data(), bytes.data(), values.size());
            break;
        case hearth::TensorType::Q4_K:
            quantize_q4_k(values.data(), bytes.data(), values.size());
            break;
        case hearth::TensorType::Q6_K:
            quantize_q6_k(values.data(), bytes.data(), values.size());
            break;
        default:
            throw std::invalid_argument("cannot write that type");
    }
    return bytes;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4 || !kShapes.contains(argv[1])) {
        fmt::print(
            stderr,
            "usage: hearth-synth-model tinyllama-1.1b|smollm-135m F16|Q8_0|Q4_0|Q4_K_M OUT.gguf\n");
        return 2;
    }
    const Shape shape = kShapes.at(argv[1]);
    const std::string type = argv[2];
    if (type != "F16" && type != "Q8_0" && type != "Q4_0" && type != "Q4_K_M") {
        fmt::print(stderr, "hearth-synth-model: unknown type '{}'\n", type);
        return 2;
    }
    hearth::GgufWriter writer;
    writer.set("general.architecture", hearth::GgufValue(std::string("llama")));
    writer.set("general.name", hearth::GgufValue(fmt::format("synthetic {} {}", argv[1], type)));
    const std::pair<const char*, int> keys[] = {{"llama.embedding_length", shape.embedding},
                                                {"llama.block_count", shape.layers},
                                                {"llama.attention.head_count", shape.heads},
                                                {"llama.attention.head_count_kv", shape.kv_heads},
                                                {"llama.feed_forward_length", shape.ffn},
                                                {"llama.context_length", 2048}};
    for (const auto& [key, value] : keys)
        writer.set(key, hearth::GgufValue(static_cast<uint32_t>(value)));
    writer.set("llama.attention.layer_norm_rms_epsilon", hearth::GgufValue(1e-5f));
    Normal random(20261122);
    const auto add = [&](const std::string& name, uint64_t columns, uint64_t rows, int layer) {
        std::vector<float> values(columns * rows);
        for (auto& v : values) v = random.next(0.02f);
        const auto chosen = pick_type(type, name, layer, shape.layers, columns);
        writer.add_tensor(name, chosen, {columns, rows}, encode(chosen, values));
    };
    const auto add_norm = [&](const std::string& name) {
        writer.add_tensor(
            name, hearth::TensorType::F32, {static_cast<uint64_t>(shape.embedding)},
            encode(hearth::TensorType::F32, std::vector<float>(shape.embedding, 1.0f)));
    };
    const uint64_t dim = shape.embedding, head_dim = dim / shape.heads,
                   kv = head_dim * shape.kv_heads;
    add("token_embd.weight", dim, shape.vocab, -1);
    add_norm("output_norm.weight");
    add("output.weight", dim, shape.vocab, -1);
    for (int i = 0; i < shape.layers; ++i) {
        const std::string p = fmt::format("blk.{}.", i);
        add_norm(p + "attn_norm.weight");
        add(p + "attn_q.weight", dim, dim, i);
        add(p + "attn_k.weight", dim, kv, i);
        add(p + "attn_v.weight", dim, kv, i);
        add(p + "attn_output.weight", dim, dim, i);
        add_norm(p + "ffn_norm.weight");
        add(p + "ffn_gate.weight", dim, shape.ffn, i);
        add(p + "ffn_up.weight", dim, shape.ffn, i);
        add(p + "ffn_down.weight", shape.ffn, dim, i);
        fmt::print(stderr, "\rlayer {}/{}", i + 1, shape.layers);
    }
    writer.write(argv[3]);
    fmt::print(stderr, "\nwrote {}\n", argv[3]);
    return 0;
}
