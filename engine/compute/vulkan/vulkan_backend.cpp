#include "engine/compute/vulkan/vulkan_backend.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <stdexcept>

#include "engine/compute/kv_cache.h"
#include "engine/compute/kv_shift.h"
#include "engine/compute/vulkan/device.h"
#include "engine/compute/vulkan/device_checkpoints.h"
#include "engine/compute/vulkan/device_weights.h"
#include "engine/compute/vulkan/forward_table.h"
#include "engine/compute/vulkan/shader_set.h"
#include "engine/compute/vulkan/submission.h"
#include "engine/generation/prefill_planner.h"
#include "engine/model/rope.h"

namespace hearth {

using vulkan::Activations;
using vulkan::DeviceKvCache;
using vulkan::ForwardTable;
using vulkan::HeadRequest;
using vulkan::Submission;

// Everything built from the model on the device; sequences point into it.
struct VulkanBackend::State {
    State(vulkan::Device& device, const Model& model, const VulkanBackendOptions& options,
          uint32_t max_tokens, uint32_t logit_rows, uint32_t ring, KvCacheType kv_cache)
        : shaders(device, model, kv_cache),
          weights(device, model, options.max_piece_bytes, options.progress),
          activations(device, model.config(), max_tokens, logit_rows, ring),
          submissions{std::make_unique<Submission>(device), std::make_unique<Submission>(device)} {}

    vulkan::ShaderSet shaders;
    vulkan::DeviceWeights weights;
    Activations activations;
    std::unique_ptr<Submission> submissions[2];
};

// A sequence's KV cache in device memory and the dispatch table that writes and reads it; its
// rings follow the bookkeeping the host caches share (KvRings), so they go back by one rule.
class VulkanBackend::DeviceSequence final : public Sequence {
public:
    DeviceSequence(VulkanBackend& backend, int capacity)
        : Sequence(backend),
          m_backend(backend),
          m_config(backend.m_model.config()),
          m_ropes(backend.m_model, capacity),
          m_rings(layer_windows(m_config), backend.ring_step(), capacity),
          m_cache(*backend.m_device, m_config, m_ropes, m_rings, backend.m_kv_cache),
          m_checkpoints(*backend.m_device, m_cache.row_bytes),
          m_table(*backend.m_device, m_config, backend.m_state->weights, backend.m_state->shaders,
                  backend.m_state->activations, m_cache) {}

    // Work still running (a chunk in flight when an error cut a run short) may read the cache.
    ~DeviceSequence() override { m_backend.m_device->wait_idle(); }

    int size() const override { return m_rings.size(); }
    int capacity() const override { return m_rings.capacity(); }
    int keepable(int length) const override { return m_rings.keepable(length); }
    void checkpoint() override {
        if (const auto storage = m_rings.checkpoint())
            m_checkpoints.save(*storage, m_rings, m_cache);
    }
    void truncate(int length) override {
        if (const auto restore = m_rings.truncate(length))
            m_checkpoints.restore(*restore, m_rings, m_cache);
    }
    // Rare (context overflow): the slots visit a host cache with the same rings, where the CPU
    // backends' shift runs, and come back moved.
    void erase(int start, int count) override {
        if (m_cache.type == KvCacheType::Q8_0) {
            erase_on_host<kernels::BlockQ8_0>(start, count);
        } else {
            erase_on_host<uint16_t>(start, count);
        }
    }

    void reserve(int count) const { check_room(size(), capacity(), count); }
    // Positions one recorded step, or a chain decode's steps ahead of the last accepted token,
    // may write before the step's first token reads the window.
    int largest_step() const { return m_rings.largest_step(); }
    void grow(int count) { m_rings.commit(count); }
    // Positions before `end` were written and then given up (work cut short or declined).
    void overwrote(int end) { m_rings.overwrote(end); }
    const ForwardTable& table() const { return m_table; }
    size_t memory_bytes() const override {
        size_t bytes = m_checkpoints.bytes();
        for (const auto* buffers : {&m_cache.keys, &m_cache.values}) {
            for (const auto& buffer : *buffers) bytes += buffer->size();
        }
        return bytes;
    }

private:
    template <typename Element>
    void erase_on_host(int start, int count) {
        BasicKvCache<Element> host(m_rings, m_config.kv_dim());
        const size_t host_row = static_cast<size_t>(host.row_size()) * sizeof(Element);
        std::vector<std::byte> rows;
        // A device row is the host's, padded to whole words (a Q8_0 row of an odd block count).
        const auto move_rows = [&](int layer, bool to_device) {
            const auto slots =
                static_cast<size_t>(std::min(m_rings.size(), m_rings.slot_count(layer)));
            rows.resize(slots * m_cache.row_bytes);
            const auto l = static_cast<size_t>(layer);
            for (auto [buffer, first] :
                 {std::pair{m_cache.keys[l].get(), host.key(layer, 0)},
                  std::pair{m_cache.values[l].get(), host.value(layer, 0)}}) {
                auto* host_bytes = reinterpret_cast<std::byte*>(first);
                if (!to_device) m_backend.m_device->download(*buffer, 0, rows.data(), rows.size());
                for (size_t row = 0; row < slots; ++row) {
                    std::byte* device_row = rows.data() + row * m_cache.row_bytes;
                    if (to_device) {
                        std::memcpy(device_row, host_bytes + row * host_row, host_row);
                    } else {
                        std::memcpy(host_bytes + row * host_row, device_row, host_row);
                    }
                }
                if (to_device) m_backend.m_device->upload(*buffer, 0, rows.data(), rows.size());
            }
        };
        for (int layer = 0; layer < m_config.layer_count; ++layer) move_rows(layer, false);
        erase_positions(host, m_ropes, m_config.head_dim, start, count);
        for (int layer = 0; layer < m_config.layer_count; ++layer) move_rows(layer, true);
        m_rings = host.rings();
    }

    VulkanBackend& m_backend;
    const ModelConfig& m_config;
    LayerRopes m_ropes;
    KvRings m_rings;
    DeviceKvCache m_cache;
    vulkan::DeviceCheckpoints m_checkpoints;
    ForwardTable m_table;
};

namespace {

constexpr uint32_t kMinimumRing = 1024;

// Chain decode records a chunk while the host still reads the one before and another is in
// flight: a token declined at the start of the chunk read leaves up to three chunks less one
// position written past the new end, which every ring must hold beside the window.
int chain_reach(int decode_chunk) {
    return 3 * decode_chunk - 1;
}

// The last row's logits, and the next token chosen from them on the device under `rule`.
HeadRequest choosing_head(const SamplerSettings& rule) {
    HeadRequest head;
    head.rows = HeadRequest::Rows::Last;
    if (rule.greedy()) {
        head.choice = HeadRequest::Choice::Argmax;
        return head;
    }
    head.choice = HeadRequest::Choice::Sample;
    head.sample.temperature = rule.temperature;
    head.sample.top_k = static_cast<uint32_t>(rule.top_k);
    head.sample.top_p = rule.top_p;
    head.sample.min_p = rule.min_p;
    head.sample.seed_low = static_cast<uint32_t>(rule.seed);
    head.sample.seed_high = static_cast<uint32_t>(rule.seed >> 32);
    return head;
}

}  // namespace

VulkanBackend::VulkanBackend(const Model& model, VulkanBackendOptions options)
    : m_model(model),
      m_options(std::move(options)),
      m_kv_cache(effective_kv_cache_type(model.config(), m_options.kv_cache)) {
    // Checked before the device opens, so the reason is the model whatever the machine: the
    // backend selection falls back to the CPU, which runs these models. The expert shaders
    // follow Qwen3-MoE's routing and gpt-oss's (the same weights, its biases added); another
    // mixture is refused by name until it runs here.
    const auto architecture = model.config().architecture;
    if (model.config().mixture_of_experts() && architecture != Architecture::Qwen3Moe &&
        architecture != Architecture::GptOss) {
        throw std::runtime_error("the Vulkan backend does not run mixture-of-experts models (" +
                                 model.config().architecture_name + ") yet; the CPU backend does");
    }
    if (m_options.chunk_sizes.empty() || m_options.decode_chunk < 1 ||
        m_options.decode_chunk > 256) {
        throw std::invalid_argument(
            "Vulkan backend: chunk sizes must be given, and the decode "
            "chunk must be 1 to 256 tokens");
    }
    m_device = vulkan::Device::open(m_options.device, m_options.allow_cpu_device,
                                    m_options.pipeline_cache);
    m_device->set_staging_only(m_options.staging_only);
    const auto& config = model.config();
    const uint32_t max_tokens = static_cast<uint32_t>(
        *std::max_element(m_options.chunk_sizes.begin(), m_options.chunk_sizes.end()));
    const uint64_t row_bytes = static_cast<uint64_t>(config.vocab_size) * sizeof(float);
    const uint32_t logit_rows = static_cast<uint32_t>(
        std::clamp<uint64_t>(m_device->info().max_storage_buffer_range / row_bytes, 1, max_tokens));
    const uint32_t ring = std::max(
        {kMinimumRing, 2 * max_tokens, 4 * static_cast<uint32_t>(m_options.decode_chunk) + 4});
    const size_t cached = m_device->pipeline_cache_bytes();
    const auto start = std::chrono::steady_clock::now();
    m_state = std::make_unique<State>(*m_device, model, m_options, max_tokens, logit_rows, ring,
                                      m_kv_cache);
    const auto ready = std::chrono::steady_clock::now();
    m_device->save_pipeline_cache();
    spdlog::info(
        "Vulkan backend on {} ({}): pipelines built in {:.1f} ms (pipeline cache: {} "
        "bytes loaded, {} now), {} MiB of weights uploaded, ready in {:.1f} ms",
        m_device->info().name, m_device->info().type_name(), m_state->shaders.build_ms(), cached,
        m_device->pipeline_cache_bytes(), m_state->weights.bytes() >> 20,
        std::chrono::duration<double, std::milli>(ready - start).count());
}

VulkanBackend::~VulkanBackend() = default;

int VulkanBackend::ring_step() const {
    return std::max(*std::max_element(m_options.chunk_sizes.begin(), m_options.chunk_sizes.end()),
                    chain_reach(m_options.decode_chunk));
}

std::string VulkanBackend::name() const {
    const std::string cache =
        m_kv_cache == KvCacheType::F16 ? "" : ", " + std::string(to_string(m_kv_cache)) + " cache";
    return "vulkan (" + m_device->info().name + cache + ")";
}

size_t VulkanBackend::weight_bytes() const {
    return m_state->weights.bytes();
}

bool VulkanBackend::chooses_on_device(const SamplerSettings& settings) {
    if (settings.greedy()) return true;
    if (settings.top_k > static_cast<int>(vulkan::kMaxDeviceTopK)) return false;
    return settings.top_k > 0 || settings.top_p >= 1.0f;
}

std::unique_ptr<Sequence> VulkanBackend::create_sequence(int capacity) {
    if (capacity < 1) throw std::invalid_argument("a sequence needs room for a token");
    return std::make_unique<DeviceSequence>(*this, capacity);
}

size_t VulkanBackend::dispatches_per_token() {
    const DeviceSequence probe(*this, 1);
    return probe.table().dispatches_per_token();
}

VulkanBackend::DeviceSequence& VulkanBackend::own(Sequence& sequence) const {
    return own_sequence<DeviceSequence>(sequence, *this);
}

std::vector<float> VulkanBackend::forward(std::span<const int32_t> tokens, Sequence& sequence,
                                          LogitRows rows) {
    DeviceSequence& own = this->own(sequence);
    check_token_ids(m_model.config(), tokens);
    own.reserve(static_cast<int>(tokens.size()));
    Activations& a = m_state->activations;
    const size_t vocab = static_cast<size_t>(m_model.config().vocab_size);
    // Every row's logits must fit the logits buffer at once.
    std::vector<int> sizes;
    for (const int size : m_options.chunk_sizes) {
        if (rows != LogitRows::All || size <= static_cast<int>(a.logit_rows)) sizes.push_back(size);
    }
    if (sizes.empty()) sizes.push_back(1);
    const auto steps = plan_prefill(static_cast<int>(tokens.size()), 0, sizes);
    for (const auto& step : steps) {
        if (step.tokens > own.largest_step())
            throw std::logic_error("a prefill step longer than the KV cache's rings allow");
    }

    Submission& submission = *m_state->submissions[0];
    auto* ring = static_cast<uint32_t*>(a.tokens->data());
    const auto* logits = static_cast<const float*>(a.logits->data());
    std::vector<float> result;
    submission.begin();
    uint32_t used = 0;  // ring slots taken by steps recorded since the last wait
    try {
        const auto flush = [&] {
            submission.submit();
            submission.wait();
            submission.begin();
            used = 0;
        };
        for (size_t s = 0; s < steps.size(); ++s) {
            const auto& step = steps[s];
            const auto count = static_cast<uint32_t>(step.tokens);
            if (used + count > a.ring) flush();
            for (uint32_t t = 0; t < count; ++t)
                ring[used + t] = static_cast<uint32_t>(tokens[static_cast<size_t>(step.start) + t]);
            HeadRequest head;
            if (rows == LogitRows::All) head.rows = HeadRequest::Rows::All;
            if (rows == LogitRows::Last && s + 1 == steps.size())
                head.rows = HeadRequest::Rows::Last;
            own.table().record(submission, count, static_cast<uint32_t>(own.size() + step.start),
                               used, head);
            used += count;
            if (rows == LogitRows::All) {
                flush();
                result.insert(result.end(), logits, logits + count * vocab);
            }
        }
        submission.submit();
        submission.wait();
    } catch (...) {
        m_device->wait_idle();
        own.overwrote(own.size() + static_cast<int>(tokens.size()));
        throw;
    }
    if (rows == LogitRows::Last) result.assign(logits, logits + vocab);
    own.grow(static_cast<int>(tokens.size()));
    return result;
}

int VulkanBackend::decode(Sequence& sequence, int32_t input, int count, TokenPicker& picker) {
    DeviceSequence& own = this->own(sequence);
    const auto rule = picker.device_rule();
    // A sequence too short to hold what chain decode writes ahead (a few chunks) decodes step by
    // step, the host choosing, as a rule the device cannot follow does.
    const bool chain_fits = chain_reach(m_options.decode_chunk) <= own.largest_step();
    if (!rule || !chooses_on_device(*rule) || !chain_fits)
        return Backend::decode(sequence, input, count, picker);
    return decode_on_device(own, input, count, *rule, picker);
}

// Chain decode: chunks of N steps, each recorded into one submission with the next token chosen
// on the device; while the host hands one chunk's tokens to the picker, the next chunk runs.
// A declined token ends the run: later tokens (and the chunk in flight) are discarded and the
// sequence's length rolls back to the last accepted token.
int VulkanBackend::decode_on_device(DeviceSequence& sequence, int32_t input, int count,
                                    const SamplerSettings& rule, TokenPicker& picker) {
    if (count <= 0) return 0;
    check_token_ids(m_model.config(), std::span(&input, 1));
    sequence.reserve(count);
    if (chain_reach(m_options.decode_chunk) > sequence.largest_step()) {
        throw std::logic_error("chain decode runs further ahead than the KV cache's rings allow");
    }
    Activations& a = m_state->activations;
    auto* ring = static_cast<uint32_t*>(a.tokens->data());
    ring[0] = static_cast<uint32_t>(input);

    const HeadRequest head = choosing_head(rule);
    const int position = sequence.size();
    struct Chunk {
        Submission* submission;
        int first, steps;
    };
    std::deque<Chunk> in_flight;
    int next = 0;  // the next step to record
    const auto launch = [&](Submission& submission) {
        const int steps = std::min(m_options.decode_chunk, count - next);
        submission.begin();
        for (int s = next; s < next + steps; ++s) {
            sequence.table().record(submission, 1, static_cast<uint32_t>(position + s),
                                    static_cast<uint32_t>(s) % a.ring, head);
        }
        submission.submit();
        in_flight.push_back({&submission, next, steps});
        next += steps;
    };
    int accepted = 0;
    bool declined = false;
    std::vector<int32_t> chosen;
    try {
        launch(*m_state->submissions[0]);
        if (next < count) launch(*m_state->submissions[1]);
        while (!in_flight.empty() && !declined) {
            const Chunk chunk = in_flight.front();
            in_flight.pop_front();
            chunk.submission->wait();
            chosen.clear();
            for (int s = chunk.first; s < chunk.first + chunk.steps; ++s)
                chosen.push_back(static_cast<int32_t>(ring[static_cast<uint32_t>(s + 1) % a.ring]));
            if (next < count) launch(*chunk.submission);
            for (const int32_t token : chosen) {
                ++accepted;
                if (!picker.accept(token)) {
                    declined = true;
                    break;
                }
            }
        }
    } catch (...) {
        m_device->wait_idle();  // nothing may still run when the caller frees the sequence
        sequence.overwrote(position + next);
        throw;
    }
    for (const Chunk& chunk : in_flight) chunk.submission->wait();  // discarded work
    sequence.overwrote(position + next);
    sequence.grow(accepted);
    return accepted;
}

}  // namespace hearth
