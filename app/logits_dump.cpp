#include "app/logits_dump.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <span>

#include "engine/generation/sampler.h"
#include "engine/model/reference_forward.h"

namespace hearth {
namespace {

// "ids": [...], "logits": [...] of the K largest logits, highest first, lower id on ties.
std::string top_k_fields(std::span<const float> logits, int k) {
    std::vector<int32_t> ids(logits.size());
    std::iota(ids.begin(), ids.end(), 0);
    const auto count = static_cast<long>(std::min<size_t>(static_cast<size_t>(k), ids.size()));
    std::partial_sort(ids.begin(), ids.begin() + count, ids.end(), [&](int32_t a, int32_t b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    });
    ids.resize(static_cast<size_t>(count));
    std::string values;
    for (const int32_t id : ids)
        values += fmt::format("{}{:.9g}", values.empty() ? "" : ", ", logits[id]);
    return fmt::format("\"ids\": [{}], \"logits\": [{}]", fmt::join(ids, ", "), values);
}

}  // namespace

std::string dump_logits_json(const Model& model, Backend& backend,
                             const std::vector<int32_t>& prompt, int top_k, int greedy_steps,
                             int context_length) {
    auto sequence = backend.create_sequence(context_length);
    const size_t vocab = static_cast<size_t>(model.config().vocab_size);
    std::vector<float> logits = backend.forward(prompt, *sequence, LogitRows::All);

    std::string json =
        fmt::format("{{\n  \"model\": \"{}\",\n  \"prompt_ids\": [{}],\n  \"prompt\": [",
                    model.config().name, fmt::join(prompt, ", "));
    for (size_t pos = 0; pos < prompt.size(); ++pos) {
        const std::span<const float> row(logits.data() + pos * vocab, vocab);
        json += fmt::format("{}\n    {{\"pos\": {}, {}}}", pos ? "," : "", pos,
                            top_k_fields(row, top_k));
    }
    json += "\n  ],\n  \"greedy\": [";
    std::vector<float> last(logits.end() - static_cast<long>(vocab), logits.end());
    for (int step = 0; step < greedy_steps; ++step) {
        const int32_t token = argmax(last);
        json += fmt::format("{}\n    {{\"step\": {}, \"id\": {}, {}}}", step ? "," : "", step,
                            token, top_k_fields(last, top_k));
        if (step + 1 < greedy_steps)
            last = backend.forward(std::span(&token, 1), *sequence, LogitRows::Last);
    }
    json += "\n  ]\n}\n";
    return json;
}

}  // namespace hearth
