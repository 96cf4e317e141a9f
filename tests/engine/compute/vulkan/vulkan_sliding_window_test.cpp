// The Vulkan backend's sliding-window rings (Gemma 2 and 3: a local layer sees its last 32
// positions in the shared files) through a conversation's life on a real device (lavapipe): the
// same going-back rule as the CPU backend (kv_cache.h), each turn compared with a cold session on
// the same backend, and a rolling-window erase on wrapped rings compared with whole caches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/compute/cpu_backend.h"
#include "engine/compute/kv_cache.h"
#include "engine/compute/vulkan/vulkan_backend.h"
#include "tests/support/fixture_check.h"
#include "tests/support/requests.h"
#include "tests/support/shared_data.h"
#include "tests/support/sliding_window_checks.h"

namespace hearth {
namespace {

using test::kWindow;

// Steps of up to 64 tokens and chain decode 8 ahead (23 positions): each local layer keeps a
// ring of 256 slots (32 + 64 - 1 rounded up), which the conversations below wrap.
VulkanBackendOptions ring_options(KvCacheType kv_cache = KvCacheType::F16) {
    return {.allow_cpu_device = true,
            .chunk_sizes = {1, 8, 64},
            .prefill_batch_tokens = 128,
            .kv_cache = kv_cache};
}
// Steps of up to 1024 tokens: no ring is smaller than a context of 1024, so every layer is whole.
VulkanBackendOptions whole_options() {
    auto options = ring_options();
    options.chunk_sizes = {1, 8, 64, 1024};
    return options;
}

// A Gemma file on lavapipe with rings.
struct OnDevice {
    explicit OnDevice(const char* name, KvCacheType kv_cache = KvCacheType::F16)
        : model(Model::load(test::model_path(name))),
          tokenizer(make_tokenizer(model->file())),
          backend(std::make_unique<VulkanBackend>(*model, ring_options(kv_cache))) {}

    std::unique_ptr<Model> model;
    std::unique_ptr<Tokenizer> tokenizer;
    std::unique_ptr<VulkanBackend> backend;
};

class VulkanSlidingWindowTest : public testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        m_device = std::make_unique<OnDevice>(GetParam());
        m_model = m_device->model.get();
        m_backend = m_device->backend.get();
        ASSERT_EQ(m_model->config().layers[0].window, kWindow);
    }

    std::unique_ptr<OnDevice> m_device;
    const Model* m_model = nullptr;
    VulkanBackend* m_backend = nullptr;
};

// The rule (kv_cache.h) on the device: going back keeps the cache while the rings hold the
// window before the new end; past that, it returns to a checkpoint (each turn's start and its
// prompt's end, copied on the device) and runs the tokens from there again. Lavapipe decodes
// slowly, so only the answer that must wrap the rings is long, on the quicker of the two files.
// The checkpoints copy whole rows, F16 or Q8_0.
class VulkanGoingBackTest : public testing::TestWithParam<KvCacheType> {};

TEST_P(VulkanGoingBackTest, FollowUpRegenerateAndEditEqualAColdSession) {
    const OnDevice gemma("synth-gemma2-256-Q4_K_M.gguf", GetParam());
    ASSERT_EQ(gemma.backend->kv_cache_type(), GetParam());
    const size_t memory = test::expect_the_going_back_rule(
        *gemma.backend, *gemma.tokenizer,
        {.prompt = 40, .answer = 4, .message = 51, .wrapping_answer = 240, .later_answers = 4});
    // Rings and two checkpoints of each: less than whole caches, more than the bare rings, and
    // within what the picker's estimate counts.
    auto options = whole_options();
    options.kv_cache = GetParam();
    VulkanBackend whole(*gemma.model, options);
    EXPECT_LT(memory, whole.create_sequence(1024)->memory_bytes());
    EXPECT_GT(memory, gemma.backend->create_sequence(1024)->memory_bytes());
    const auto& config = gemma.model->config();
    EXPECT_LE(memory, kv_cache_bytes(layer_windows(config), 64, 1024,
                                     2 * kv_row_bytes(GetParam(), config.kv_dim())));
}

INSTANTIATE_TEST_SUITE_P(CacheTypes, VulkanGoingBackTest,
                         testing::Values(KvCacheType::F16, KvCacheType::Q8_0),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// Dropping positions from the middle (the rolling-window policy) of wrapped rings: the slots
// visit the host and come back moved, so the device goes on as it does with whole caches, and
// as the CPU backend does (within the fixture tests' tolerance: 8-bit activations for
// quantised weights, F16 keys re-rotated).
TEST_P(VulkanSlidingWindowTest, ARollingWindowEraseOnWrappedRingsEqualsWholeCaches) {
    const int length = 300, keep = 4, dropped = 2 * kWindow + 5;  // the rings wrapped
    VulkanBackend whole(*m_model, whole_options());
    CpuBackend cpu(*m_model, {.threads = 2, .chunk_sizes = {1, 8, 64}});
    const auto rings = test::logits_after_erase(*m_backend, length, keep, dropped);
    const bool quantised = std::string(GetParam()).find("Q4_K") != std::string::npos;
    const float tolerance = quantised ? 0.05f : 5e-3f;
    EXPECT_LT(
        test::largest_difference(rings, test::logits_after_erase(whole, length, keep, dropped)),
        1e-3f);
    EXPECT_LT(test::largest_difference(rings, test::logits_after_erase(cpu, length, keep, dropped)),
              tolerance);
    EXPECT_LT(m_backend->create_sequence(512)->memory_bytes(),
              whole.create_sequence(512)->memory_bytes());
}

INSTANTIATE_TEST_SUITE_P(Gemma, VulkanSlidingWindowTest,
                         testing::Values("synth-gemma2-256-Q4_K_M.gguf", "synth-gemma3-256.gguf"),
                         [](const auto& info) { return test::parameter_name(info.param); });

}  // namespace
}  // namespace hearth
