// hearth-synth-model: writes full-size random-weight GGUF models (N(0, 0.02) matrices, norms of
// 1.0) of the shapes benchmarks compare on, so no benchmark needs a download.
//   hearth-synth-model SHAPE TYPE OUT.gguf     SHAPE: tinyllama-1.1b | smollm-135m
//                                              TYPE:  F16 | Q8_0 | Q4_0 | Q4_K_M
#include <fmt/format.h>

#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "bench/normal_random.h"
#include "bench/quant_recipe.h"
#include "bench/synth_shapes.h"
#include "bench/synth_tensor_plan.h"
#include "engine/format/gguf_writer.h"
#include "kernels/quantize.h"

namespace {

using namespace hearth;
using namespace hearth::bench;

std::vector<std::byte> encode(TensorType type, const std::vector<float>& values) {
    std::vector<std::byte> bytes(tensor_bytes(type, values.size()));
    using namespace hearth::kernels;
    switch (type) {
        case TensorType::F32:
            std::memcpy(bytes.data(), values.data(), bytes.size());
            break;
        case TensorType::F16:
            quantize_f16(values.data(), bytes.data(), values.size());
            break;
        case TensorType::Q8_0:
            quantize_q8_0(values.data(), bytes.data(), values.size());
            break;
        case TensorType::Q4_0:
            quantize_q4_0(values.data(), bytes.data(), values.size());
            break;
        case TensorType::Q5_0:
            quantize_q5_0(values.data(), bytes.data(), values.size());
            break;
        case TensorType::Q4_K:
            quantize_q4_k(values.data(), bytes.data(), values.size());
            break;
        case TensorType::Q6_K:
            quantize_q6_k(values.data(), bytes.data(), values.size());
            break;
        default:
            throw std::invalid_argument("cannot write that type");
    }
    return bytes;
}

void write_tensors(const SynthShape& shape, QuantMix mix, GgufWriter& writer) {
    NormalRandom random(20261122);
    for (const PlannedTensor& tensor : tensor_plan(shape)) {
        std::vector<float> values(tensor.columns * tensor.rows, 1.0f);
        if (!tensor.norm) {
            for (auto& v : values) v = random.next(0.02f);
        }
        const TensorType type = pick_type(mix, tensor, shape);
        std::vector<uint64_t> dims{tensor.columns};
        if (!tensor.norm) dims.push_back(tensor.rows);
        writer.add_tensor(tensor.name, type, std::move(dims), encode(type, values));
        if (tensor.name.ends_with("ffn_down.weight"))
            fmt::print(stderr, "\rlayer {}/{}", tensor.layer + 1, shape.layers);
    }
}

}  // namespace

int main(int argc, char** argv) {
    const SynthShape* shape = argc == 4 ? find_shape(argv[1]) : nullptr;
    const auto mix = argc == 4 ? parse_quant_mix(argv[2]) : std::nullopt;
    if (!shape || !mix) {
        fmt::print(stderr, "usage: hearth-synth-model {} F16|Q8_0|Q4_0|Q4_K_M OUT.gguf\n",
                   shape_names());
        return 2;
    }
    try {
        GgufWriter writer;
        writer.set("general.architecture", GgufValue(shape->architecture));
        writer.set("general.name", GgufValue(fmt::format("synthetic {} {}", argv[1], argv[2])));
        write_shape_metadata(*shape, writer);
        write_tensors(*shape, *mix, writer);
        writer.write(argv[3]);
    } catch (const std::exception& error) {
        fmt::print(stderr, "\nhearth-synth-model: {}\n", error.what());
        return 1;
    }
    fmt::print(stderr, "\nwrote {}\n", argv[3]);
    return 0;
}
