// hearth-synth-model: writes full-size random-weight GGUF models (N(0, 0.02) matrices, norms of
// 1.0) of the shapes benchmarks compare on, so no benchmark needs a download.
//   hearth-synth-model SHAPE TYPE OUT.gguf [--layers N] [--experts N] [--vocab-size N]
//                      [--vocab VOCAB.gguf]
//     SHAPE: tinyllama-1.1b | smollm-135m | qwen3-0.6b | gemma3-1b | qwen3moe-30b-a3b |
//            gpt-oss-20b
//     TYPE:  F16 | Q8_0 | Q4_0 | Q4_K_M (gpt-oss-20b: F16, which llama-quantize makes MXFP4_MOE
//            of, as gpt-oss is released)
//     --layers N: fewer (or more) blocks than the shape has, for tests
//     --experts N: fewer experts per layer than a mixture-of-experts shape has, for tests (each
//                  of the same shape; at most N used per token)
//     --vocab-size N: a smaller vocabulary (and embedding) than the shape's, for tests: a
//                     copied vocabulary must fit it (GPT-2's 50,257 tokens, say)
//     --vocab: the byte-level BPE vocabulary qwen3-0.6b and the MoE shapes copy (default:
//              ggml-vocab-qwen2.gguf under $HEARTH_SHARED_DIR/fixtures/tokenizer, else the
//              configured shared folder);
//              named, it is copied into shapes that have none too (any vocabulary-only GGUF of
//              at most the shape's size)
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "bench/normal_random.h"
#include "bench/quant_recipe.h"
#include "bench/synth_shapes.h"
#include "bench/synth_tensor_plan.h"
#include "bench/synth_vocabulary.h"
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

std::filesystem::path default_bpe_vocabulary() {
    const char* shared = std::getenv("HEARTH_SHARED_DIR");
    const std::filesystem::path root = shared != nullptr ? shared : HEARTH_DEFAULT_SHARED_DIR;
    return root / "fixtures" / "tokenizer" / "ggml-vocab-qwen2.gguf";
}

void write_vocabulary(const SynthShape& shape, const std::filesystem::path& bpe_vocabulary,
                      GgufWriter& writer) {
    switch (shape.vocabulary) {
        case VocabularySource::None:
            return;
        case VocabularySource::Copied:
            copy_vocabulary(bpe_vocabulary, shape.vocab, writer);
            return;
        case VocabularySource::SyntheticSpm:
            write_synthetic_spm_vocabulary(shape.vocab, writer);
            return;
    }
}

// Each tensor's values are drawn when the writer reaches it (in plan order, so the bytes are
// the same as drawing them all first), so a file of gigabytes needs the memory of one tensor.
void write_tensors(const SynthShape& shape, QuantMix mix, GgufWriter& writer,
                   NormalRandom& random) {
    for (const PlannedTensor& tensor : tensor_plan(shape)) {
        const TensorType type = pick_type(mix, tensor, shape);
        writer.add_tensor(tensor.name, type, tensor.shape(), [&random, tensor, type, &shape] {
            std::vector<float> values(tensor.elements(), 1.0f);
            if (tensor.role != TensorRole::Norm) {
                for (auto& v : values) v = random.next(0.02f);
            }
            if (tensor.name.ends_with("ffn_down.weight") ||
                tensor.name.ends_with("ffn_down_exps.weight"))
                fmt::print(stderr, "\rlayer {}/{}", tensor.layer + 1, shape.layers);
            return encode(type, values);
        });
    }
}

struct Options {
    std::string shape_name, mix_name, out;
    std::optional<int> layers;
    std::optional<int> experts;
    std::optional<int> vocab_size;
    std::filesystem::path vocabulary = default_bpe_vocabulary();
    bool vocabulary_named = false;  // --vocab given: shapes without a vocabulary get it too
};

std::optional<Options> parse(int argc, char** argv) {
    if (argc < 4 || (argc - 4) % 2 != 0) return std::nullopt;
    Options options{argv[1], argv[2], argv[3]};
    for (int i = 4; i < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--layers") {
            options.layers = std::atoi(argv[i + 1]);
            if (*options.layers < 1) return std::nullopt;
        } else if (flag == "--experts") {
            options.experts = std::atoi(argv[i + 1]);
            if (*options.experts < 1) return std::nullopt;
        } else if (flag == "--vocab-size") {
            options.vocab_size = std::atoi(argv[i + 1]);
            if (*options.vocab_size < 1) return std::nullopt;
        } else if (flag == "--vocab") {
            options.vocabulary = argv[i + 1];
            options.vocabulary_named = true;
        } else {
            return std::nullopt;
        }
    }
    return options;
}

}  // namespace

int main(int argc, char** argv) {
    const auto options = parse(argc, argv);
    const SynthShape* found = options ? find_shape(options->shape_name) : nullptr;
    const auto mix = options ? parse_quant_mix(options->mix_name) : std::nullopt;
    if (!found || !mix) {
        fmt::print(stderr,
                   "usage: hearth-synth-model {} F16|Q8_0|Q4_0|Q4_K_M OUT.gguf [--layers N] "
                   "[--experts N] [--vocab-size N] [--vocab VOCAB.gguf]\n",
                   shape_names());
        return 2;
    }
    SynthShape shape = *found;
    if (options->layers) shape.layers = *options->layers;
    if (options->vocab_size) shape.vocab = *options->vocab_size;
    if (options->experts && shape.mixture_of_experts()) {
        shape.experts = *options->experts;
        shape.experts_used = std::min(shape.experts_used, shape.experts);
    }
    // A named vocabulary of the shape's size (llama-spm for TinyLlama, starcoder for SmolLM)
    // makes a file servers can tokenize text for, not only token ids.
    if (options->vocabulary_named && shape.vocabulary == VocabularySource::None)
        shape.vocabulary = VocabularySource::Copied;
    try {
        GgufWriter writer;
        writer.set("general.architecture", GgufValue(shape.architecture));
        writer.set("general.name", GgufValue(fmt::format("synthetic {} {}", options->shape_name,
                                                         options->mix_name)));
        writer.set("general.file_type", GgufValue(file_type_id(*mix)));
        write_shape_metadata(shape, writer);
        write_vocabulary(shape, options->vocabulary, writer);
        NormalRandom random(20261122);
        write_tensors(shape, *mix, writer, random);
        writer.write(options->out);
    } catch (const std::exception& error) {
        fmt::print(stderr, "\nhearth-synth-model: {}\n", error.what());
        return 1;
    }
    fmt::print(stderr, "\nwrote {}\n", options->out);
    return 0;
}
