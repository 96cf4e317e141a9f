#include "engine/compute/vulkan/forward_table.h"

#include <algorithm>

#include "kernels/quant_blocks.h"

namespace hearth::vulkan {
namespace {

template <typename... Visitors>
struct Overloaded : Visitors... {
    using Visitors::operator()...;
};

uint32_t groups_for(uint64_t items, uint32_t size = 64) {
    return static_cast<uint32_t>((items + size - 1) / size);
}

std::unique_ptr<Buffer> floats(Device& device, size_t count, Memory memory = Memory::Device) {
    return std::make_unique<Buffer>(device, std::max<size_t>(count, 1) * sizeof(float), memory);
}

}  // namespace

Activations::Activations(Device& device, const ModelConfig& config, uint32_t max_tokens,
                         uint32_t logit_rows, uint32_t ring)
    : max_tokens(max_tokens), logit_rows(logit_rows), ring(ring) {
    const size_t t = max_tokens;
    x = floats(device, t * config.embedding_length);
    normed = floats(device, t * config.embedding_length);
    query = floats(device, t * config.query_dim());
    key = floats(device, t * config.kv_dim());
    value = floats(device, t * config.kv_dim());
    attended = floats(device, t * config.query_dim());
    // With experts, every (token, expert) pair has its own gate and up rows.
    const size_t pairs = t * static_cast<size_t>(std::max(config.experts_used, 1));
    gate = floats(device, pairs * config.feed_forward_length);
    up = floats(device, pairs * config.feed_forward_length);
    projected = floats(device, config.post_norms ? t * config.embedding_length : 1);
    const bool experts = config.mixture_of_experts();
    router_logits = floats(device, experts ? t * config.expert_count : 1);
    chosen = floats(device, experts ? pairs : 1);
    route_weights = floats(device, experts ? pairs : 1);
    order = floats(device, experts ? pairs : 1);
    const uint32_t tile_count =
        expert_tile_bound(static_cast<uint32_t>(pairs), static_cast<uint32_t>(config.expert_count));
    tiles = floats(device, experts ? 3 * size_t{tile_count} : 1);
    expert_out = floats(device, experts ? pairs * config.embedding_length : 1);
    logits = floats(device, size_t{logit_rows} * config.vocab_size, Memory::Host);
    tokens = std::make_unique<Buffer>(device, size_t{ring} * sizeof(uint32_t), Memory::Host);
    none = floats(device, 1);
}

ForwardTable::ForwardTable(Device& device, const ModelConfig& config, const DeviceWeights& weights,
                           const ShaderSet& shaders, const Activations& activations,
                           const DeviceKvCache& cache)
    : m_config(config), m_shaders(shaders), m_activations(activations) {
    const Activations& a = activations;
    const uint32_t dim = static_cast<uint32_t>(config.embedding_length);
    std::vector<Pending> layers, head;

    const auto& embedding = weights.token_embedding();
    for (size_t p = 0; p < embedding.pieces.size(); ++p) {
        const auto& piece = embedding.pieces[p];
        add(layers, shaders.embedding(embedding.type),
            {piece.buffer.get(), a.tokens.get(), a.x.get()},
            EmbeddingPush{dim, piece.first_row, piece.rows, 0, a.ring, config.embedding_scale}, 0,
            p + 1 == embedding.pieces.size());
    }
    for (int l = 0; l < config.layer_count; ++l) {
        const DeviceLayer& w = weights.layers()[static_cast<size_t>(l)];
        add_attention(layers, l, w, cache);
        add_feed_forward(layers, w);
    }
    add_norm(head, *a.x, weights.output_norm(), *a.normed, dim, 1, 0, true);
    // Capped here, so the device's argmax and sampler read what the host would.
    add_matmul(head, weights.output(), *a.normed, *a.logits, nullptr, 0, true,
               config.final_softcap);

    const auto sets = static_cast<uint32_t>(layers.size() + head.size() + 2);
    uint32_t descriptors = 4;
    for (const auto* list : {&layers, &head}) {
        for (const auto& pending : *list)
            descriptors += static_cast<uint32_t>(pending.bindings.size());
    }
    m_pool = std::make_unique<DescriptorPool>(device, sets, descriptors);
    m_layers = allocate(std::move(layers));
    m_head = allocate(std::move(head));
    const Buffer* choose[] = {a.logits.get(), a.tokens.get()};
    m_argmax_set = m_pool->allocate(shaders.argmax(), choose);
    m_sample_set = m_pool->allocate(shaders.sample(), choose);
}

// Normalise, project to q/k/v, normalise each head (Qwen3, Gemma 3), rotate the queries and
// store the rotated keys (unless the layer has no RoPE), attend, project back into x.
void ForwardTable::add_attention(std::vector<Pending>& list, int layer, const DeviceLayer& w,
                                 const DeviceKvCache& cache) {
    const Activations& a = m_activations;
    const ModelConfig& config = m_config;
    const uint32_t head_dim = static_cast<uint32_t>(config.head_dim);
    const uint32_t heads = static_cast<uint32_t>(config.head_count);
    const uint32_t kv_heads = static_cast<uint32_t>(config.kv_head_count);
    const Buffer *k_cache = cache.keys[static_cast<size_t>(layer)].get(),
                 *v_cache = cache.values[static_cast<size_t>(layer)].get();
    add_norm(list, *a.x, *w.attention_norm, *a.normed,
             static_cast<uint32_t>(config.embedding_length), 1, 0, true);
    add_matmul(list, w.query, *a.normed, *a.query, w.query_bias.get(), 0, false);
    add_matmul(list, w.key, *a.normed, *a.key, w.key_bias.get(), 0, false);
    add_matmul(list, w.value, *a.normed, *a.value, w.value_bias.get(), 0, true);
    if (config.query_key_norm) {
        // In place, one row per head.
        add_norm(list, *a.query, *w.query_norm, *a.query, head_dim, heads, 0, false);
        add_norm(list, *a.key, *w.key_norm, *a.key, head_dim, kv_heads, 0, true);
    }
    const DeviceKvCache::AngleTable* rope = cache.rope(layer);
    const uint32_t pairs = rope != nullptr ? rope->pairs : 0;
    const uint32_t neox = rope != nullptr && rope->neox ? 1 : 0;
    const Buffer* angles = rope != nullptr ? rope->angles.get() : a.none.get();
    if (rope != nullptr) {
        add(list, m_shaders.rope(), {a.query.get(), angles},
            RopePush{0, heads, head_dim, pairs, 0, neox}, heads * pairs, false);
    }
    const auto rows = static_cast<uint32_t>(cache.rows[static_cast<size_t>(layer)]);
    // kv_store's invocations per token: a word of two halves each, or a pair of Q8_0 blocks.
    const uint32_t stores = cache.type == KvCacheType::Q8_0
                                ? (kv_heads * head_dim / kernels::kBlock32 + 1) / 2
                                : kv_heads * head_dim / 2;
    add(list, m_shaders.kv_store(), {a.key.get(), a.value.get(), angles, k_cache, v_cache},
        KvStorePush{0, kv_heads, head_dim, pairs, 0, neox, rows}, stores, true);
    const auto window = static_cast<uint32_t>(config.layers[static_cast<size_t>(layer)].window);
    const Buffer* sinks = w.attention_sinks.get();
    add(list, m_shaders.attention(),
        {a.query.get(), k_cache, v_cache, a.attended.get(), sinks ? sinks : a.none.get()},
        AttentionPush{0, heads, kv_heads, head_dim, 0, config.attention_scale, window,
                      config.attention_softcap, rows, sinks ? 1u : 0u},
        heads, true);
    add_residual(list, w.attention_output, *a.attended, w.post_attention_norm.get(),
                 w.attention_output_bias.get());
}

// Normalise, gate and up, the model's gate activation, down into x.
void ForwardTable::add_feed_forward(std::vector<Pending>& list, const DeviceLayer& w) {
    if (m_config.mixture_of_experts()) {
        add_experts(list, w);
        return;
    }
    const Activations& a = m_activations;
    add_norm(list, *a.x, *w.ffn_norm, *a.normed, static_cast<uint32_t>(m_config.embedding_length),
             1, 0, true);
    add_matmul(list, w.gate, *a.normed, *a.gate, nullptr, 0, false);
    add_matmul(list, w.up, *a.normed, *a.up, nullptr, 0, true);
    add(list, m_shaders.gate_activation(), {a.gate.get(), a.up.get()}, CountPush{0},
        static_cast<uint32_t>(m_config.feed_forward_length), true);
    add_residual(list, w.down, *a.gate, w.post_ffn_norm.get());
}

// Normalise; the router's logits; each token's experts and weights chosen on the device
// (route.comp), the step's (token, expert) pairs grouped by expert (expert_tiles.comp); the
// chosen experts' gate and up, the gate activation and down, each expert's weights (and gpt-oss's
// biases: the router's, each expert's own) read once per tile of its pairs; the weighted sum
// into x. Nothing waits on the host, so chain decode runs through it.
void ForwardTable::add_experts(std::vector<Pending>& list, const DeviceLayer& w) {
    const Activations& a = m_activations;
    const auto dim = static_cast<uint32_t>(m_config.embedding_length);
    const auto experts = static_cast<uint32_t>(m_config.expert_count);
    const auto used = static_cast<uint32_t>(m_config.experts_used);
    add_norm(list, *a.x, *w.ffn_norm, *a.normed, dim, 1, 0, true);
    add_matmul(list, w.router, *a.normed, *a.router_logits, w.router_bias.get(), 0, true);
    add(list, m_shaders.route(), {a.router_logits.get(), a.chosen.get(), a.route_weights.get()},
        RoutePush{0, experts, used}, 1, true);
    add(list, m_shaders.expert_tiles(), {a.chosen.get(), a.order.get(), a.tiles.get()},
        ExpertTilesPush{0, experts, 0}, used, true);
    add_expert_matmul(list, w.expert_gate, *a.normed, *a.gate, w.expert_gate_bias.get(),
                      kExpertInputByToken, false);
    add_expert_matmul(list, w.expert_up, *a.normed, *a.up, w.expert_up_bias.get(),
                      kExpertInputByToken, true);
    add(list, m_shaders.gate_activation(), {a.gate.get(), a.up.get()}, CountPush{0},
        used * static_cast<uint32_t>(m_config.feed_forward_length), true);
    add_expert_matmul(list, w.expert_down, *a.gate, *a.expert_out, w.expert_down_bias.get(),
                      kExpertOutputByPair, true);
    add(list, m_shaders.expert_sum(), {a.x.get(), a.expert_out.get(), a.route_weights.get()},
        ExpertSumPush{0, dim, used}, dim, true);
}

// One dispatch per piece of whole experts; each runs the tiles of the experts it holds. A bias
// holds every expert's rows, read at the expert's own.
void ForwardTable::add_expert_matmul(std::vector<Pending>& list, const DeviceMatrix& stacked,
                                     const Buffer& input, const Buffer& output, const Buffer* bias,
                                     uint32_t flags, bool barrier_after) {
    const Activations& a = m_activations;
    if (bias != nullptr) flags |= kMatmulBias;
    const uint32_t rows = stacked.rows / static_cast<uint32_t>(m_config.expert_count);
    for (size_t p = 0; p < stacked.pieces.size(); ++p) {
        const auto& piece = stacked.pieces[p];
        add(list, m_shaders.expert_matmul(stacked.type),
            {piece.buffer.get(), &input, &output, bias ? bias : a.none.get(), a.order.get(),
             a.tiles.get()},
            ExpertMatmulPush{rows, stacked.columns, piece.first_row / rows, piece.rows / rows, rows,
                             flags, static_cast<uint32_t>(m_config.experts_used), 0},
            0, barrier_after && p + 1 == stacked.pieces.size());
    }
}

// x += matrix · input (+ bias, gpt-oss's attention output's): the product accumulates into x, or
// with a post-norm (Gemma) goes to a scratch buffer whose normalised rows the norm adds into x.
void ForwardTable::add_residual(std::vector<Pending>& list, const DeviceMatrix& matrix,
                                const Buffer& input, const Buffer* post_norm, const Buffer* bias) {
    const Activations& a = m_activations;
    if (post_norm == nullptr) {
        add_matmul(list, matrix, input, *a.x, bias, kMatmulAccumulate, true);
        return;
    }
    add_matmul(list, matrix, input, *a.projected, bias, 0, true);
    add_norm(list, *a.projected, *post_norm, *a.x, static_cast<uint32_t>(m_config.embedding_length),
             1, kNormAccumulate, true);
}

void ForwardTable::add_norm(std::vector<Pending>& list, const Buffer& input, const Buffer& weight,
                            const Buffer& output, uint32_t dim, uint32_t rows_per_token,
                            uint32_t flags, bool barrier_after) {
    add(list, m_shaders.rmsnorm(), {&input, &weight, &output},
        NormPush{0, dim, m_config.rms_epsilon, flags}, rows_per_token, barrier_after);
}

void ForwardTable::add(std::vector<Pending>& list, const Pipeline& pipeline,
                       std::vector<const Buffer*> bindings, Push push, uint32_t per_token,
                       bool barrier_after) {
    list.push_back(
        {{&pipeline, VK_NULL_HANDLE, push, per_token, barrier_after}, std::move(bindings)});
}

void ForwardTable::add_matmul(std::vector<Pending>& list, const DeviceMatrix& matrix,
                              const Buffer& input, const Buffer& output, const Buffer* bias,
                              uint32_t flags, bool barrier_after, float softcap) {
    if (bias != nullptr) flags |= kMatmulBias;
    if (softcap > 0.0f) flags |= kMatmulSoftcap;
    for (size_t p = 0; p < matrix.pieces.size(); ++p) {
        const auto& piece = matrix.pieces[p];
        add(list, m_shaders.matmul(matrix.type),
            {piece.buffer.get(), &input, &output, bias ? bias : m_activations.none.get()},
            MatmulPush{piece.rows, matrix.columns, 0, 0, piece.first_row, matrix.rows, flags,
                       softcap},
            0, barrier_after && p + 1 == matrix.pieces.size());
    }
}

std::vector<ForwardTable::Dispatch> ForwardTable::allocate(std::vector<Pending> list) {
    std::vector<Dispatch> dispatches;
    dispatches.reserve(list.size());
    for (auto& pending : list) {
        pending.dispatch.set = m_pool->allocate(*pending.dispatch.pipeline, pending.bindings);
        dispatches.push_back(pending.dispatch);
    }
    return dispatches;
}

void ForwardTable::emit(Submission& submission, const Dispatch& d, uint32_t tokens,
                        uint32_t position, uint32_t slot, uint32_t first_input) const {
    Push push = d.push;
    const auto patch = Overloaded{
        [&](EmbeddingPush& p) -> Groups {
            p.slot = slot;
            return {tokens, 1, 1};
        },
        [&](NormPush& p) -> Groups {
            p.rows = tokens * d.per_token;
            return {p.rows, 1, 1};
        },
        [&](MatmulPush& p) -> Groups {
            p.tokens = tokens;
            p.first_input = first_input;
            const uint32_t workgroups = groups_for(p.rows, m_shaders.rows_per_workgroup());
            return {std::min(workgroups, kSlice), groups_for(tokens, kMatmulTile),
                    groups_for(workgroups, kSlice)};
        },
        [&](RopePush& p) -> Groups {
            p.tokens = tokens;
            p.first_position = position;
            return {groups_for(uint64_t{tokens} * d.per_token), 1, 1};
        },
        [&](KvStorePush& p) -> Groups {
            p.tokens = tokens;
            p.first_position = position;
            return {groups_for(uint64_t{tokens} * d.per_token), 1, 1};
        },
        [&](AttentionPush& p) -> Groups {
            p.tokens = tokens;
            p.first_position = position;
            return {tokens * d.per_token, 1, 1};
        },
        [&](CountPush& p) -> Groups {
            p.count = tokens * d.per_token;
            return {groups_for(p.count), 1, 1};
        },
        [&](RoutePush& p) -> Groups {
            p.tokens = tokens;
            return {groups_for(tokens), 1, 1};
        },
        [&](ExpertTilesPush& p) -> Groups {
            p.pairs = tokens * d.per_token;
            p.tiles = expert_tile_bound(p.pairs, p.experts);
            return {1, 1, 1};
        },
        [&](ExpertMatmulPush& p) -> Groups {
            const uint32_t workgroups = groups_for(p.rows, m_shaders.rows_per_workgroup());
            const uint32_t tiles =
                expert_tile_bound(tokens * p.used, static_cast<uint32_t>(m_config.expert_count));
            return {std::min(workgroups, kSlice), tiles, groups_for(workgroups, kSlice)};
        },
        [&](ExpertSumPush& p) -> Groups {
            p.count = tokens * d.per_token;
            return {groups_for(p.count), 1, 1};
        },
    };
    const Groups groups = std::visit(patch, push);
    std::visit([&](const auto& block) { submission.dispatch(*d.pipeline, d.set, block, groups); },
               push);
    if (d.barrier_after) submission.barrier();
}

void ForwardTable::record(Submission& submission, uint32_t tokens, uint32_t position, uint32_t slot,
                          const HeadRequest& head) const {
    for (const auto& d : m_layers) emit(submission, d, tokens, position, slot, 0);
    if (head.rows == HeadRequest::Rows::None) return;
    const bool all = head.rows == HeadRequest::Rows::All;
    for (const auto& d : m_head) {
        // The norm runs on every row (cheap); the LM head only on the rows asked for.
        if (std::holds_alternative<MatmulPush>(d.push)) {
            emit(submission, d, all ? tokens : 1, position, slot, all ? 0 : tokens - 1);
        } else {
            emit(submission, d, tokens, position, slot, 0);
        }
    }
    const uint32_t vocab = static_cast<uint32_t>(m_config.vocab_size);
    const uint32_t next_slot = (slot + tokens) % m_activations.ring;
    if (head.choice == HeadRequest::Choice::Argmax) {
        const ArgmaxPush push{vocab, next_slot};
        submission.dispatch(m_shaders.argmax(), m_argmax_set, push, {1, 1, 1});
        submission.barrier();
    } else if (head.choice == HeadRequest::Choice::Sample) {
        SamplePush push = head.sample;
        push.count = vocab;
        push.step = position + tokens;
        push.slot = next_slot;
        push.ring = m_activations.ring;
        submission.dispatch(m_shaders.sample(), m_sample_set, push, {1, 1, 1});
        submission.barrier();
    }
}

}  // namespace hearth::vulkan
