// Which weight layout a load asks for, by the backend that will run the model.
#include "engine/runtime/backend_selection.h"

#include <gtest/gtest.h>

#include "engine/model/strip_layout.h"
#include "kernels/dot_variants.h"
#include "kernels/strips.h"

namespace hearth {
namespace {

bool asks_for_strips(const BackendPreference& preference, BackendSelectorOptions selector = {}) {
    const MapOptions options =
        BackendSelector(std::move(selector)).load_options(preference, {.prefault = true});
    EXPECT_TRUE(options.prefault);
    if (options.rewrite) {
        EXPECT_EQ(options.rewrite->layout, kStripLayout);
    }
    return options.rewrite != nullptr;
}

TEST(LoadOptions, StripsExactlyWhereTheCpuBackendWithAStripKernelRunsTheModel) {
    using Kind = BackendPreference::Kind;
    const bool kernel = kernels::strip_rows(kernels::kQ4_0, kernels::best_isa()) != nullptr;
    EXPECT_EQ(asks_for_strips({.kind = Kind::Cpu}), kernel);
    EXPECT_EQ(asks_for_strips({.kind = Kind::Automatic}), kernel && !has_gpu());
    EXPECT_EQ(asks_for_strips({.kind = Kind::Cpu, .unknown_setting = "quantum"}), kernel);
    // A lower kernel level has no strip kernel: strips would only be unpacked on every product.
    EXPECT_FALSE(asks_for_strips({.kind = Kind::Cpu, .isa = "avx2"}));
    EXPECT_FALSE(asks_for_strips({.kind = Kind::Cpu, .isa = "no-such-level"}));
    // A GPU and the float32 oracle read rows.
    EXPECT_FALSE(asks_for_strips({.kind = Kind::Vulkan}));
    EXPECT_FALSE(asks_for_strips({.kind = Kind::Reference}));
    // Where CPU implementations count as GPUs (lavapipe, in tests), automatic may pick one.
    EXPECT_FALSE(asks_for_strips({.kind = Kind::Automatic}, {.cpu_devices_as_gpus = true}));
}

}  // namespace
}  // namespace hearth
