#include "engine/generation/decode_loop.h"

#include <algorithm>

#include "engine/generation/ngram_drafter.h"
#include "engine/generation/prefill.h"

namespace hearth {
namespace {

bool has_penalties(const SamplerSettings& s) {
    return s.repeat_penalty != 1.0f || s.presence_penalty != 0.0f || s.frequency_penalty != 0.0f;
}

}  // namespace

DecodeLoop::DecodeLoop(DecodeContext context, const GenerationRequest& request,
                       const GenerationSink& sink)
    : m_context(std::move(context)),
      m_request(request),
      m_sink(sink),
      m_sampler(request.sampler),
      m_stop_strings(request.stop_strings),
      m_splitter(request.reasoning) {
    if (request.grammar) {
        if (!m_context.trie) throw std::invalid_argument("JSON mode needs the vocabulary's trie");
        m_constraint.emplace(request.grammar, m_context.trie, m_context.tokenizer);
    }
    for (const int32_t token : m_context.history.cached()) m_sampler.accept(token);
}

int64_t DecodeLoop::elapsed_ns() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - m_start).count();
}

bool DecodeLoop::cancelled() const {
    return m_request.cancel != nullptr && m_request.cancel->load(std::memory_order_relaxed);
}

void DecodeLoop::stop(StopReason reason) {
    if (m_stopped) return;
    m_stopped = true;
    m_result.stats.stop_reason = reason;
}

GenerationResult DecodeLoop::run(std::span<const int32_t> prefill_tokens, GenerationStats stats) {
    m_start = Clock::now();
    m_result.stats = std::move(stats);
    if (m_sink.on_prompt) m_sink.on_prompt(m_result.stats);
    auto logits = prefill(prefill_tokens);
    m_result.stats.prefill_ns = elapsed_ns();
    if (!logits) {
        finish();
        return std::move(m_result);
    }
    m_context.sequence.checkpoint();  // a regenerate comes back here
    if (m_request.max_tokens <= 0) {
        stop(StopReason::MaxTokens);
        finish();
        return std::move(m_result);
    }
    const int32_t first = pick(*logits);
    if (emit(first)) {
        const bool speculative = m_request.speculative && m_sampler.settings().greedy() &&
                                 !has_penalties(m_sampler.settings()) && !m_constraint;
        if (speculative) {
            decode_speculative(first);
        } else {
            decode_plain(first);
        }
    }
    finish();
    return std::move(m_result);
}

std::optional<std::vector<float>> DecodeLoop::prefill(std::span<const int32_t> tokens) {
    auto logits =
        run_prefill(m_context.backend, m_context.sequence, tokens,
                    {.proceed = [this] { return !cancelled(); }, .progress = m_sink.on_prefill});
    if (!logits) stop(StopReason::Cancelled);
    return logits;
}

bool DecodeLoop::ensure_room() {
    if (m_context.sequence.size() < m_context.sequence.capacity()) return true;
    if (!m_context.make_room || m_context.make_room() == 0) {
        stop(StopReason::ContextFull);
        return false;
    }
    return true;
}

void DecodeLoop::decode_plain(int32_t input) {
    while (!m_stopped) {
        if (!ensure_room()) return;
        const int room = m_context.sequence.capacity() - m_context.sequence.size();
        const int left = m_request.max_tokens - m_result.stats.generated_tokens;
        m_run.clear();
        const int accepted =
            m_context.backend.decode(m_context.sequence, input, std::min(room, left), *this);
        if (accepted == 0) return;
        m_context.history.append(input);
        m_context.history.append(std::span(m_run).first(static_cast<size_t>(accepted - 1)));
        input = m_run.back();
    }
}

// Drafts (a draft model's, or looked up in the conversation) verified in one batched pass: row j
// of the logits says what follows input + drafts[0..j), so the tokens emitted are exactly plain
// greedy's. Where there is no draft, or drafting does not pay (SpeculationGovernor), tokens come
// in plain chunks, as without speculation (whole chunks per submission on a device).
void DecodeLoop::decode_speculative(int32_t input) {
    std::vector<int32_t> lookup = m_context.history.cached();
    lookup.push_back(input);
    // Draft length adapts: it doubles after a fully accepted draft and falls back to what was
    // accepted plus one after a miss, so verification rows are not wasted on text the
    // conversation does not repeat.
    int draft_length = std::max(1, m_request.draft_tokens / 2);
    while (!m_stopped) {
        if (!ensure_room()) return;
        const auto started = Clock::now();
        const std::vector<int32_t> drafts = propose(lookup, draft_length);
        if (drafts.empty()) {
            input = decode_until_draft(input, lookup, started);
            continue;
        }
        const int emitted = verify(input, drafts, lookup);
        m_governor.verified(emitted, seconds_since(started));
        const int accepted = emitted - 1;
        const int drafted = static_cast<int>(drafts.size());
        draft_length = accepted == drafted ? std::min(2 * drafted, m_request.draft_tokens)
                                           : std::max(1, accepted + 1);
        input = lookup.back();
    }
}

std::vector<int32_t> DecodeLoop::propose(std::span<const int32_t> lookup, int draft_length) {
    if (!m_governor.drafting()) return {};
    const int room = m_context.sequence.capacity() - m_context.sequence.size();
    const int left = m_request.max_tokens - m_result.stats.generated_tokens;
    const DraftSettings settings{.max_tokens =
                                     std::max(0, std::min({draft_length, room - 1, left - 1}))};
    if (settings.max_tokens == 0) return {};
    return m_request.drafter ? m_request.drafter->propose(lookup, settings.max_tokens)
                             : draft_by_lookup(lookup, settings);
}

// One pass over `input` and `drafts`; returns how many tokens it emitted (the input's successor
// and every draft the model agreed with), each appended to `lookup`.
int DecodeLoop::verify(int32_t input, std::span<const int32_t> drafts,
                       std::vector<int32_t>& lookup) {
    std::vector<int32_t> batch{input};
    batch.insert(batch.end(), drafts.begin(), drafts.end());
    const size_t vocab = static_cast<size_t>(m_context.tokenizer.vocabulary().size());
    const int base = m_context.sequence.size();
    const auto logits = m_context.backend.forward(batch, m_context.sequence, LogitRows::All);
    const int drafted = static_cast<int>(drafts.size());
    m_result.stats.draft_tokens += drafted;
    int emitted = 0;
    for (int row = 0; row <= drafted && !m_stopped; ++row) {
        const int32_t token = pick(std::span(logits).subspan(row * vocab, vocab));
        ++emitted;
        const bool matched = row < drafted && token == batch[static_cast<size_t>(row + 1)];
        if (matched) ++m_result.stats.accepted_draft_tokens;
        lookup.push_back(token);
        if (!emit(token) || !matched) break;
    }
    // The cache keeps the input and the emitted tokens but the last (the next input).
    m_context.sequence.truncate(base + emitted);
    m_context.history.append(std::span(batch).first(static_cast<size_t>(emitted)));
    return emitted;
}

// Plain decoding from `input` until the conversation offers a draft again (accept() watches),
// or for the governor's budget while drafting pauses; returns the next input.
int32_t DecodeLoop::decode_until_draft(int32_t input, std::vector<int32_t>& lookup,
                                       Clock::time_point started) {
    const int room = m_context.sequence.capacity() - m_context.sequence.size();
    const int left = m_request.max_tokens - m_result.stats.generated_tokens;
    const int budget = m_governor.plain_budget();
    m_run.clear();
    m_watched = &lookup;
    const int accepted = m_context.backend.decode(
        m_context.sequence, input,
        budget > 0 ? std::min({room, left, budget}) : std::min(room, left), *this);
    m_watched = nullptr;
    m_governor.decoded_plainly(accepted, seconds_since(started));
    if (accepted == 0) {
        m_stopped = true;  // as decode_plain: the backend took no token, none will come
        return input;
    }
    m_context.history.append(input);
    m_context.history.append(std::span(m_run).first(static_cast<size_t>(accepted - 1)));
    return m_run.back();
}

// Whether the conversation, as `lookup` holds it, offers a draft to verify now.
bool DecodeLoop::draft_waiting(std::span<const int32_t> lookup) const {
    if (!m_governor.drafting()) return false;
    return m_request.drafter || !draft_by_lookup(lookup, DraftSettings{.max_tokens = 1}).empty();
}

double DecodeLoop::seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

int32_t DecodeLoop::pick(std::span<const float> logits) {
    if (!m_constraint) return m_sampler.sample(logits);
    const int left = m_request.max_tokens - m_result.stats.generated_tokens;
    return m_constraint->pick(logits, m_sampler, left);
}

bool DecodeLoop::accept(int32_t token) {
    m_run.push_back(token);
    if (!emit(token)) return false;
    if (m_watched == nullptr) return true;
    m_watched->push_back(token);
    return !draft_waiting(*m_watched);  // a draft to verify ends the plain chunk
}

std::optional<SamplerSettings> DecodeLoop::device_rule() const {
    if (m_constraint || has_penalties(m_sampler.settings()) || !m_request.stop_strings.empty())
        return std::nullopt;
    return m_sampler.settings();
}

bool DecodeLoop::emit(int32_t token) {
    const int64_t now = elapsed_ns();
    auto& stats = m_result.stats;
    if (stats.generated_tokens == 0) stats.time_to_first_token_ns = now;
    if (token < 0) {
        stop(StopReason::NoValidToken);
        return false;
    }
    if (m_context.tokenizer.is_end_of_generation(token)) {
        stop(StopReason::EndOfGeneration);
        return false;
    }
    ++stats.generated_tokens;
    stats.token_times_ns.push_back(now);
    m_result.tokens.push_back(token);
    m_sampler.accept(token);
    if (m_constraint) m_constraint->accept(token);

    const bool was_reasoning = m_splitter.in_reasoning();
    const auto split = m_splitter.push(m_utf8.push(piece(token)));
    const auto out = m_stop_strings.push(split.answer);
    m_chunk.tokens.push_back(token);
    m_chunk.token_times_ns.push_back(now);
    m_chunk.text += out.text;
    m_chunk.reasoning += split.reasoning;
    m_tally.count(now, was_reasoning, m_splitter, m_chunk, stats);
    if (out.stopped) {
        stop(StopReason::StopString);
    } else if (m_constraint && m_constraint->finished()) {
        stop(StopReason::DocumentComplete);
    } else if (stats.generated_tokens >= m_request.max_tokens) {
        stop(StopReason::MaxTokens);
    }
    if (m_stopped) return false;
    // The first token goes out at once (time to first token is what users feel); then N tokens
    // or the interval, whichever comes first.
    const auto interval =
        std::chrono::duration_cast<std::chrono::nanoseconds>(m_request.handoff.interval).count();
    if (stats.generated_tokens == 1 ||
        static_cast<int>(m_chunk.tokens.size()) >= m_request.handoff.chunk_tokens ||
        now - m_last_handoff_ns >= interval) {
        if (!hand_off(now)) stop(StopReason::Cancelled);
    }
    if (!m_stopped && cancelled()) stop(StopReason::Cancelled);
    return !m_stopped;
}

// gpt-oss's channel markers are control tokens, which print nothing: the splitter reads them
// (and nobody else sees them).
std::string DecodeLoop::piece(int32_t token) const {
    std::string text = m_context.tokenizer.token_to_piece(token);
    if (text.empty() && m_request.reasoning.markup == ReasoningMarkup::Harmony) {
        std::string marker = m_context.tokenizer.token_to_piece(token, true);
        if (is_harmony_marker(marker)) return marker;
    }
    return text;
}

bool DecodeLoop::hand_off(int64_t now_ns) {
    m_last_handoff_ns = now_ns;
    if (m_chunk.empty()) return true;
    m_result.text += m_chunk.text;
    m_result.reasoning += m_chunk.reasoning;
    const bool go_on = !m_sink.on_chunk || m_sink.on_chunk(m_chunk);
    m_chunk.clear();
    return go_on;
}

// Releases held-back text (unless a stop string claimed it) in one last chunk.
void DecodeLoop::finish() {
    auto& stats = m_result.stats;
    if (stats.stop_reason != StopReason::StopString) {
        const auto split = m_splitter.push(m_utf8.flush());
        const auto tail = m_splitter.flush();
        m_chunk.reasoning += split.reasoning + tail.reasoning;
        const auto out = m_stop_strings.push(split.answer + tail.answer);
        m_chunk.text += out.text;
        if (out.stopped) {
            stats.stop_reason = StopReason::StopString;
        } else {
            m_chunk.text += m_stop_strings.flush();
        }
    }
    hand_off(elapsed_ns());
    m_tally.finish(stats);
    if (stats.generated_tokens > 0) {
        stats.decode_ns = stats.token_times_ns.back() - stats.token_times_ns.front();
    }
}

}  // namespace hearth
