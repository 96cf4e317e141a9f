// The dispatch table of one sequence's forward pass: every dispatch of every layer with its
// pipeline, its descriptor set (weights, shared activations, this sequence's KV cache) and the
// push constants that never change, built once. Recording a step patches what does: the number
// of tokens, their first position (the KV length follows from it) and their token-ring slot.
#pragma once

#include <array>
#include <memory>
#include <variant>
#include <vector>

#include "engine/compute/vulkan/device_kv_cache.h"
#include "engine/compute/vulkan/device_weights.h"
#include "engine/compute/vulkan/shader_set.h"
#include "engine/compute/vulkan/submission.h"
#include "engine/model/model.h"

namespace hearth::vulkan {

// Activation buffers shared by every sequence of a backend, sized for its largest step.
struct Activations {
    Activations(Device& device, const ModelConfig& config, uint32_t max_tokens, uint32_t logit_rows,
                uint32_t ring);

    uint32_t max_tokens, logit_rows, ring;
    std::unique_ptr<Buffer> x, normed, query, key, value, attended, gate, up;
    std::unique_ptr<Buffer> projected;  // a block's output before its post-norm (Gemma)
    // Mixture of experts (else one float each): router logits (tokens, experts); the chosen
    // experts and their weights (tokens, used); the pairs grouped by expert and the tiles of the
    // grouped product (expert_tiles.comp); each pair's expert output (tokens * used, dim). The
    // experts' gate and up use `gate` and `up`, sized for every pair.
    std::unique_ptr<Buffer> router_logits, chosen, route_weights, order, tiles, expert_out;
    std::unique_ptr<Buffer> logits;  // (logit_rows, vocab), read by the host
    std::unique_ptr<Buffer> tokens;  // the token ring: inputs and chosen tokens, by slot
    std::unique_ptr<Buffer> none;    // bound where a shader's optional input is absent
};

// What the head of a step does: nothing, logits of the last row or of every row, and whether
// the next token is chosen on the device.
struct HeadRequest {
    enum class Rows { None, Last, All } rows = Rows::None;
    enum class Choice { None, Argmax, Sample } choice = Choice::None;
    SamplePush sample{};  // for Sample: settings; count/step/slot/ring are filled in
};

class ForwardTable {
public:
    ForwardTable(Device& device, const ModelConfig& config, const DeviceWeights& weights,
                 const ShaderSet& shaders, const Activations& activations,
                 const DeviceKvCache& cache);

    // Records `tokens` tokens read from ring slots [slot, slot + tokens), at positions
    // [position, position + tokens); the head as asked, a chosen token going to slot + tokens.
    void record(Submission& submission, uint32_t tokens, uint32_t position, uint32_t slot,
                const HeadRequest& head) const;
    // Per decode step: every layer's dispatches, the head's, and the token choice.
    size_t dispatches_per_token() const { return m_layers.size() + m_head.size() + 1; }

private:
    // Each kind of dispatch by its push-constant block, its fixed fields filled in when the
    // table is built.
    using Push =
        std::variant<EmbeddingPush, NormPush, MatmulPush, RopePush, KvStorePush, AttentionPush,
                     CountPush, RoutePush, ExpertTilesPush, ExpertMatmulPush, ExpertSumPush>;
    struct Dispatch {
        const Pipeline* pipeline;
        VkDescriptorSet set;
        Push push;           // the fixed fields; the rest are patched when recorded
        uint32_t per_token;  // work items (element-wise ops) or norm rows per token
        bool barrier_after;
    };
    struct Pending {
        Dispatch dispatch;
        std::vector<const Buffer*> bindings;
    };

    void add(std::vector<Pending>& list, const Pipeline& pipeline,
             std::vector<const Buffer*> bindings, Push push, uint32_t per_token,
             bool barrier_after);
    void add_matmul(std::vector<Pending>& list, const DeviceMatrix& matrix, const Buffer& input,
                    const Buffer& output, const Buffer* bias, uint32_t flags, bool barrier_after,
                    float softcap = 0.0f);
    void add_norm(std::vector<Pending>& list, const Buffer& input, const Buffer& weight,
                  const Buffer& output, uint32_t dim, uint32_t rows_per_token, uint32_t flags,
                  bool barrier_after);
    void add_attention(std::vector<Pending>& list, int layer, const DeviceLayer& weights,
                       const DeviceKvCache& cache);
    void add_feed_forward(std::vector<Pending>& list, const DeviceLayer& weights);
    void add_experts(std::vector<Pending>& list, const DeviceLayer& weights);
    void add_expert_matmul(std::vector<Pending>& list, const DeviceMatrix& stacked,
                           const Buffer& input, const Buffer& output, const Buffer* bias,
                           uint32_t flags, bool barrier_after);
    void add_residual(std::vector<Pending>& list, const DeviceMatrix& matrix, const Buffer& input,
                      const Buffer* post_norm, const Buffer* bias = nullptr);
    std::vector<Dispatch> allocate(std::vector<Pending> list);
    void emit(Submission& submission, const Dispatch& dispatch, uint32_t tokens, uint32_t position,
              uint32_t slot, uint32_t first_input) const;

    const ModelConfig& m_config;
    const ShaderSet& m_shaders;
    const Activations& m_activations;
    std::unique_ptr<DescriptorPool> m_pool;
    std::vector<Dispatch> m_layers;  // embedding and every layer
    std::vector<Dispatch> m_head;    // the final norm and the LM head
    VkDescriptorSet m_argmax_set = VK_NULL_HANDLE, m_sample_set = VK_NULL_HANDLE;
};

}  // namespace hearth::vulkan
