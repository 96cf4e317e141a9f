// A model loaded in the CPU's strip layout holds the same weights as its file, rearranged: every
// reader (the CPU backend at each kernel level, the reference pass, a GPU upload) computes the
// same numbers from it as from the file's rows, bit for bit where it runs the same operations.
#include "engine/model/strip_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "engine/compute/cpu_backend.h"
#include "engine/compute/reference_backend.h"
#include "engine/compute/vulkan/vulkan_backend.h"
#include "engine/model/cpu_load_options.h"
#include "engine/model/load_error.h"
#include "engine/model/model.h"
#include "kernels/dot_variants.h"
#include "kernels/strips.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

const char* const kModel = "synth-llama-256-Q4_0.gguf";
// The shared files with products of a type in strips: Q4_0's, IQ4_NL's, IQ4_XS's, Q3_K's and a
// quantiser's IQ4_XS and Q3_K_M mixes (their other types stay rows).
const char* const kStripModels[] = {kModel,
                                    "synth-llama-256-IQ4_NL.gguf",
                                    "synth-llama-256-IQ4_XS.gguf",
                                    "synth-llama-256-IQ4_XS-mix.gguf",
                                    "synth-llama-256-Q3_K.gguf",
                                    "synth-llama-256-Q3_K_M.gguf"};

struct Loaded {
    explicit Loaded(const char* name = kModel)
        : rows(Model::load(test::model_path(name))),
          strips(Model::load(test::model_path(name), {.rewrite = strip_layout()})) {}
    std::unique_ptr<Model> rows;
    std::unique_ptr<Model> strips;
};

class StripLayoutTest : public testing::TestWithParam<const char*> {};

// Every matrix of a model with the one in the same place of another.
template <typename Visit>
void for_each_matrix(const Model& first, const Model& second, Visit visit) {
    const auto& a = first.weights();
    const auto& b = second.weights();
    visit(a.token_embedding, b.token_embedding, "token_embd");
    visit(a.output, b.output, "output");
    for (size_t l = 0; l < a.layers.size(); ++l) {
        const auto ma = a.layers[l].matrices(), mb = b.layers[l].matrices();
        for (size_t m = 0; m < ma.size(); ++m) {
            visit(*ma[m], *mb[m], "layer " + std::to_string(l) + " matrix " + std::to_string(m));
        }
    }
}

TEST_P(StripLayoutTest, RepacksTheProductsOfItsTypesInPlaceAndNothingElse) {
    const Loaded loaded(GetParam());
    int repacked = 0;
    std::vector<std::byte> scratch;
    for_each_matrix(
        *loaded.rows, *loaded.strips,
        [&](const WeightMatrix& rows, const WeightMatrix& strips, const std::string& what) {
            EXPECT_FALSE(rows.strips) << what;
            const bool expected = kernels::has_strip_layout(static_cast<int>(rows.type)) &&
                                  what != "token_embd" && rows.rows % 16 == 0;
            EXPECT_EQ(strips.strips, expected) << what;
            const size_t bytes = static_cast<size_t>(rows.rows) * rows.row_bytes;
            const bool same = std::memcmp(rows.data, strips.data, bytes) == 0;
            EXPECT_EQ(same, !strips.strips) << what;
            const std::byte* unpacked = strips.rows_at(0, strips.rows, scratch);
            EXPECT_EQ(std::memcmp(rows.data, unpacked, bytes), 0) << what;
            repacked += strips.strips;
        });
    // Most matrices of each layer of these files are of the type in strips.
    EXPECT_GE(repacked, 4 * static_cast<int>(loaded.rows->weights().layers.size()));
    // The file itself is untouched: a plain load reads its rows.
    const auto again = Model::load(test::model_path(GetParam()), {.huge_pages = false});
    const auto& query = again->weights().layers[0].query;
    EXPECT_EQ(std::memcmp(query.data, loaded.rows->weights().layers[0].query.data,
                          static_cast<size_t>(query.rows) * query.row_bytes),
              0);
}

std::vector<int32_t> prompt(int length) {
    std::vector<int32_t> tokens{1};
    for (int i = 1; i < length; ++i) tokens.push_back(3 + (i * 37) % 250);
    return tokens;
}

// A prompt, then decode steps; every row of logits.
std::vector<float> run(Backend& backend) {
    auto sequence = backend.create_sequence(128);
    auto logits = backend.forward(prompt(70), *sequence, LogitRows::All);
    for (const int32_t token : {5, 17, 99}) {
        const auto step = backend.forward(std::span(&token, 1), *sequence, LogitRows::Last);
        logits.insert(logits.end(), step.begin(), step.end());
    }
    return logits;
}

// Which of a model's products are in strips.
struct StripCensus {
    bool q4_0_only = true;  // every matrix in strips is Q4_0
    bool all = true;        // every product (the layers' and the LM head) is in strips
};

StripCensus census(const Model& model) {
    StripCensus found;
    for_each_matrix(
        model, model, [&](const WeightMatrix& w, const WeightMatrix&, const std::string& what) {
            found.q4_0_only = found.q4_0_only && (!w.strips || w.type == TensorType::Q4_0);
            if (what != "token_embd") found.all = found.all && w.strips;
        });
    return found;
}

// The largest difference between two runs' logits, against the largest logit's size.
float relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
    float largest = 0.0f, difference = 0.0f;
    for (size_t i = 0; i < a.size(); ++i) {
        largest = std::max(largest, std::abs(a[i]));
        difference = std::max(difference, std::abs(a[i] - b[i]));
    }
    return difference / largest;
}

// Everything on the integer dots here. Below AVX-512 VNNI the strips are unpacked for the row
// kernels of the level: the rows' numbers bit for bit. Above, the strip kernels compute their
// twins' numbers: for Q4_0 scalar::dot_q4_0_offset, which is what the AVX2 row kernel computes
// (AVX-512's row kernels read activations of another layout, Q4_0Lanes), so again bit for bit.
// IQ4_NL's and IQ4_XS's row kernels read activations of that other layout and sum in another
// order, and Q3_K's sum each super-block across eight lanes before its one float product: the
// same products to rounding, which these small random models amplify over their
// layers to 1-2% of the largest logit (as between the AVX2 and AVX-512 row kernels: 0.9-2.3%).
TEST_P(StripLayoutTest, TheCpuBackendComputesTheRowsNumbersAtEveryKernelLevel) {
    const Loaded loaded(GetParam());
    const StripCensus strips_held = census(*loaded.strips);
    const bool q4_0 = strips_held.q4_0_only;
    for (const auto isa : {kernels::Isa::Scalar, kernels::Isa::Avx2, kernels::Isa::Avx512Vnni}) {
        if (isa > kernels::best_isa()) continue;
        const bool kernel = kernels::strip_rows(kernels::kQ4_0, isa) != nullptr;
        const CpuBackendOptions dots{.threads = 2,
                                     .isa = kernel && q4_0 ? kernels::Isa::Avx2 : isa,
                                     .chunk_sizes = {1, 8, 64},
                                     .panel_threshold = 1000,
                                     .blas_threshold = 1000};
        CpuBackendOptions strips = dots;
        strips.isa = isa;
        if (strips_held.all) strips.blas_threshold = 32;  // which strips never take
        CpuBackend from_rows(*loaded.rows, dots), from_strips(*loaded.strips, strips);
        const auto rows = run(from_rows), in_strips = run(from_strips);
        if (!kernel || q4_0) {
            EXPECT_EQ(rows, in_strips) << kernels::isa_name(isa);
        } else {
            ASSERT_EQ(rows.size(), in_strips.size());
            EXPECT_LT(relative_difference(rows, in_strips), 0.05f) << kernels::isa_name(isa);
        }
    }
}

TEST_P(StripLayoutTest, TheReferencePassReadsStripsAsRows) {
    const Loaded loaded(GetParam());
    ReferenceBackend from_rows(*loaded.rows), from_strips(*loaded.strips);
    EXPECT_EQ(run(from_rows), run(from_strips));
}

// A GPU reads rows: the upload unpacks strips, in pieces that need not start on a strip.
TEST_P(StripLayoutTest, AGpuUploadUnpacksStrips) {
    const Loaded loaded(GetParam());
    const VulkanBackendOptions options{.allow_cpu_device = true, .max_piece_bytes = 16 << 10};
    VulkanBackend from_rows(*loaded.rows, options), from_strips(*loaded.strips, options);
    EXPECT_EQ(run(from_rows), run(from_strips));
}

TEST(Q4_0StripLayout, SlicesOfStripsFallBetweenStrips) {
    const Loaded loaded;
    const WeightMatrix& up = loaded.strips->weights().layers[0].up;
    ASSERT_TRUE(up.strips);
    const WeightMatrix second = up.slice(16, 32);
    EXPECT_TRUE(second.strips);
    std::vector<std::byte> whole, part;
    const std::byte* rows = up.rows_at(16, 32, whole);
    EXPECT_EQ(std::memcmp(rows, second.rows_at(0, 32, part), 32 * up.row_bytes), 0);
    try {
        (void)up.slice(8, 16);
        FAIL() << "a slice from the middle of a strip";
    } catch (const LoadError& error) {
        EXPECT_NE(std::string(error.what()).find("strip of 16 rows"), std::string::npos)
            << error.what();
    }
}

// Which tensors the layout takes, by name, type and shape. An ffn_up must split into two halves
// of whole strips: Phi-3's is its gate and up in one, cut at the FFN length.
TEST(Q4_0StripLayout, TakesProductsWhoseRowsFillWholeStrips) {
    const auto tensor = [](std::string name, uint64_t rows, TensorType type = TensorType::Q4_0) {
        GgufTensor t{.name = std::move(name), .type = type, .shape = {64, rows}};
        t.elements = 64 * rows;
        return t;
    };
    EXPECT_TRUE(repacked_into_strips(tensor("blk.3.attn_q.weight", 48)));
    EXPECT_TRUE(repacked_into_strips(tensor("blk.0.ffn_down.weight", 16)));
    EXPECT_TRUE(repacked_into_strips(tensor("output.weight", 256)));
    EXPECT_TRUE(repacked_into_strips(tensor("blk.0.ffn_up.weight", 64)));
    EXPECT_FALSE(repacked_into_strips(tensor("blk.0.ffn_up.weight", 48)));
    EXPECT_FALSE(repacked_into_strips(tensor("blk.3.attn_q.weight", 40)));
    EXPECT_FALSE(repacked_into_strips(tensor("blk.3.attn_q.weight", 48, TensorType::Q8_0)));
    EXPECT_TRUE(repacked_into_strips(tensor("blk.3.attn_q.weight", 48, TensorType::IQ4_NL)));
    // IQ4_XS's rows are whole super-blocks of 256.
    GgufTensor wide = tensor("blk.3.attn_q.weight", 48, TensorType::IQ4_XS);
    EXPECT_FALSE(repacked_into_strips(wide));
    wide.shape = {512, 48};
    wide.elements = 512 * 48;
    EXPECT_TRUE(repacked_into_strips(wide));
    EXPECT_FALSE(repacked_into_strips(tensor("token_embd.weight", 256)));
    EXPECT_FALSE(repacked_into_strips(tensor("blk.0.attn_qkv.weight", 256)));
    EXPECT_FALSE(repacked_into_strips(tensor("blk.0.ffn_up_exps.weight", 256)));
    GgufTensor stacked = tensor("blk.0.ffn_gate.weight", 64);
    stacked.shape = {64, 16, 4};
    EXPECT_FALSE(repacked_into_strips(stacked));
}

// The rewrite reads the file's header as any load does: a damaged file is the same LoadError.
TEST(Q4_0StripLayout, ADamagedFileIsRefusedAsWithoutTheLayout) {
    test::TempDirectory directory;
    std::ifstream source(test::model_path(kModel), std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(source)), {});
    bytes.resize(bytes.size() / 2);
    const auto truncated = directory.path() / "truncated.gguf";
    std::ofstream(truncated, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    for (const auto& rewrite : {std::shared_ptr<const ByteRewrite>(), strip_layout()}) {
        try {
            (void)Model::load(truncated, {.rewrite = rewrite});
            FAIL() << "a truncated file loaded";
        } catch (const LoadError& error) {
            EXPECT_NE(std::string(error.what()).find("truncated or corrupt file"),
                      std::string::npos)
                << error.what();
        }
    }
}

// The engine's loads ask for strips exactly where the CPU has a kernel for them.
TEST(Q4_0StripLayout, CpuLoadsAskForStripsWhereTheCpuHasAStripKernel) {
    const auto options = cpu_load_options({.prefault = true});
    const bool kernel = kernels::strip_rows(kernels::kQ4_0, kernels::best_isa()) != nullptr;
    ASSERT_EQ(options.rewrite != nullptr, kernel);
    if (kernel) {
        EXPECT_EQ(options.rewrite->layout, kStripLayout);
    }
    EXPECT_EQ(strip_rewrite(kernels::Isa::Avx2), nullptr);
    EXPECT_EQ(strip_rewrite(kernels::Isa::Scalar), nullptr);
}

INSTANTIATE_TEST_SUITE_P(SharedModels, StripLayoutTest, testing::ValuesIn(kStripModels),
                         [](const auto& info) {
                             std::string name = info.param;
                             name = name.substr(0, name.find(".gguf"));
                             for (auto& c : name)
                                 c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                             return name;
                         });

}  // namespace
}  // namespace hearth
