// The whole forward pass on a GPU through Vulkan compute shaders: weights uploaded once, the
// KV cache in device memory, prefill in planner-sized steps submitted back to back, and chain
// decode — N forward passes recorded into one submission with each next token chosen on the
// device, two submissions in flight so the device computes chunk k+1 while the host streams
// chunk k.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/compute/kv_cache_type.h"
#include "engine/model/model.h"

namespace hearth {

namespace vulkan {
class Device;
}

struct VulkanBackendOptions {
    std::optional<uint32_t> device;        // an index from list_devices(); none: the best GPU
    bool allow_cpu_device = false;         // accept a CPU implementation such as lavapipe
    std::filesystem::path pipeline_cache;  // kept between runs; empty: none
    std::vector<int> chunk_sizes{1, 8, 64};
    int decode_chunk = 8;            // tokens per submission in chain decode
    int prefill_batch_tokens = 512;  // prompt tokens per submission: progress and cancel between
    size_t max_piece_bytes = 0;      // weight buffers' size limit; 0: the device's range
    bool staging_only = false;       // upload through staging even into mappable memory (tests)
    KvCacheType kv_cache = KvCacheType::F16;  // effective_kv_cache_type decides per model
    std::function<bool(size_t done, size_t total)> progress;  // weight upload; false cancels
};

class VulkanBackend final : public Backend {
public:
    // Opens the device, builds the pipelines and uploads the weights. Throws VulkanError (no
    // driver, no device, out of memory), LoadCancelled, or std::runtime_error for a model the
    // shaders cannot run.
    VulkanBackend(const Model& model, VulkanBackendOptions options = {});
    ~VulkanBackend() override;

    std::string name() const override;
    std::unique_ptr<Sequence> create_sequence(int capacity) override;
    std::vector<float> forward(std::span<const int32_t> tokens, Sequence& sequence,
                               LogitRows rows) override;
    std::vector<int> chunk_sizes() const override { return m_options.chunk_sizes; }
    int prefill_batch_tokens() const override { return m_options.prefill_batch_tokens; }
    int decode(Sequence& sequence, int32_t input, int count, TokenPicker& picker) override;

    vulkan::Device& device() { return *m_device; }
    // Whether tokens under these settings can be chosen on the device (no top-p without top-k,
    // top-k at most 64); otherwise decode runs step by step with the host choosing.
    static bool chooses_on_device(const SamplerSettings& settings);
    // Device memory this backend holds for the weights.
    size_t weight_bytes() const;
    // Dispatches one decode step records (the design's per-token cost on the device side).
    size_t dispatches_per_token();
    // The type this backend's caches have (F16 where the model cannot use the one asked for).
    KvCacheType kv_cache_type() const { return m_kv_cache; }

private:
    class DeviceSequence;
    struct State;

    // The step a sequence's rings are sized for: the largest prefill step, or how far chain
    // decode writes ahead of what it has accepted.
    int ring_step() const;
    DeviceSequence& own(Sequence& sequence) const;
    int decode_on_device(DeviceSequence& sequence, int32_t input, int count,
                         const SamplerSettings& rule, TokenPicker& picker);

    const Model& m_model;
    VulkanBackendOptions m_options;
    KvCacheType m_kv_cache;
    std::unique_ptr<vulkan::Device> m_device;
    std::unique_ptr<State> m_state;
};

}  // namespace hearth
