// The picker's quantisation text on the shared files llama-quantize wrote: mixes by share of the
// parameters, and plain files by their type alone.
#include "app/phrasing/quantization_text.h"

#include <gtest/gtest.h>

#include "tests/support/shared_data.h"

namespace hearth {
namespace {

std::string text_of(const char* file) {
    return quantization_text(read_model_info(test::model_path(file)));
}

TEST(QuantizationText, NamesTheFileTypeAndItsMixByShareOfTheParameters) {
    // Q3_K_M: 9 of 16 matrices in Q3_K, the attention values and some feed-forward ones in
    // Q4_K/Q5_K, the output matrix in Q6_K; the float norms are under half a percent.
    EXPECT_EQ(text_of("synth-llama-256-Q3_K_M.gguf"),
              "Q3_K_M: Q3_K 61%, Q4_K 29%, Q6_K 7%, Q5_K 4%");
    EXPECT_EQ(text_of("synth-llama-256-IQ4_XS-mix.gguf"), "IQ4_XS: IQ4_XS 93%, Q6_K 7%");
    EXPECT_EQ(text_of("synth-llama-256-Q4_K_M.gguf").rfind("Q4_K_M: Q4_K ", 0), 0u);
    // A file of one type says just that; one whose label is not its only type says both.
    EXPECT_EQ(text_of("synth-llama-256-Q2_K.gguf"), "Q2_K");
    EXPECT_EQ(text_of("synth-llama-256-IQ4_NL.gguf"), "IQ4_NL");
    EXPECT_EQ(text_of("synth-llama-256-Q3_K.gguf"), "Q3_K_M: Q3_K 100%");
    EXPECT_EQ(text_of("synth-llama-256-F16.gguf"), "F16");
}

TEST(QuantizationText, WithoutTypesItIsTheFileTypeAlone) {
    ModelInfo info;
    info.quantization = "Q8_0";
    EXPECT_EQ(quantization_text(info), "Q8_0");
}

}  // namespace
}  // namespace hearth
