#include "engine/runtime/memory_check.h"

#include <gtest/gtest.h>

#include "tests/support/shared_data.h"

namespace hearth {
namespace {

TEST(MemoryCheck, AShortfallCarriesTheEstimateThePickerShows) {
    const auto info = read_model_info(test::model_path("stories260K.gguf"));
    const uint64_t needed = info.memory_bytes(512);
    EXPECT_EQ(memory_shortfall(info, 512, needed), std::nullopt);
    EXPECT_EQ(memory_shortfall(info, 512, std::nullopt), std::nullopt);  // unknown: no refusal
    const auto shortfall = memory_shortfall(info, 512, needed - 1);
    ASSERT_TRUE(shortfall.has_value());
    EXPECT_EQ(shortfall->needed, needed);
    EXPECT_EQ(shortfall->available, needed - 1);
    EXPECT_EQ(shortfall->context, 512);
    EXPECT_EQ(shortfall->file, info.path);
    // A longer context needs more: the KV cache is part of the estimate.
    EXPECT_GT(info.memory_bytes(4096), needed);
}

TEST(MemoryCheck, TheErrorIsALoadErrorNamingTheFileAndTheNumbers) {
    const MemoryShortfall facts{.file = "/models/big.gguf",
                                .needed = uint64_t{3} << 30,
                                .available = uint64_t{1} << 30,
                                .context = 4096};
    const InsufficientMemoryError error(facts);
    const LoadError& as_load_error = error;
    const std::string what = as_load_error.what();
    EXPECT_NE(what.find("/models/big.gguf"), std::string::npos) << what;
    EXPECT_NE(what.find("3072 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("1024 MiB"), std::string::npos) << what;
    EXPECT_EQ(error.facts().context, 4096);
}

TEST(MemoryCheck, TheBundledModelFitsThisMachine) {
    EXPECT_NO_THROW(check_free_memory(read_model_info(test::model_path("stories260K.gguf")), 512));
}

}  // namespace
}  // namespace hearth
