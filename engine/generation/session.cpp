#include "engine/generation/session.h"

#include <algorithm>
#include <stdexcept>

#include "engine/compute/kv_cache.h"
#include "engine/generation/decode_loop.h"
#include "engine/generation/overflow_planner.h"

namespace hearth {
namespace {

void check(const GenerationRequest& request) {
    if (request.prompt.empty()) throw std::invalid_argument("the prompt has no tokens");
    if (request.handoff.chunk_tokens < 1) {
        throw std::invalid_argument("the hand-off chunk must hold at least one token");
    }
    if (request.draft_tokens < 0) throw std::invalid_argument("negative draft length");
    if (!std::is_sorted(request.turn_starts.begin(), request.turn_starts.end())) {
        throw std::invalid_argument("turn starts must be sorted");
    }
}

// Room a dropping overflow policy keeps for some of the answer when it lays out a prompt.
int answer_headroom(const GenerationRequest& request, int capacity) {
    return request.overflow == OverflowPolicy::Stop
               ? 0
               : std::min(std::max(request.max_tokens, 0), capacity / 4);
}

}  // namespace

Session::Session(Backend& backend, const Tokenizer& tokenizer, int context_length)
    : m_backend(backend),
      m_tokenizer(tokenizer),
      m_sequence(backend.create_sequence(context_length)) {}

void Session::clear() {
    m_sequence->truncate(0);
    m_history.clear();
}

const std::shared_ptr<const TokenTrie>& Session::trie() {
    if (!m_trie) m_trie = std::make_shared<const TokenTrie>(m_tokenizer);
    return m_trie;
}

GenerationResult Session::generate(const GenerationRequest& request, const GenerationSink& sink) {
    check(request);
    std::span<const int32_t> prompt(request.prompt);
    int shared = m_history.fork(prompt);
    // The last prompt token always runs: its logits choose the first new token.
    if (shared == static_cast<int>(prompt.size()))
        shared = m_history.fork(prompt.first(shared - 1));
    // An overflow took tokens out of the cache only to make room. A prompt that fits whole again
    // (a regenerate or an edit after an answer that outgrew the context) is read whole, from the
    // first token the cache lost, so the model sees all of it as a new conversation would.
    const int intact = m_history.cached_prefix();
    if (intact < shared &&
        static_cast<int>(prompt.size()) + answer_headroom(request, context_length()) <=
            context_length()) {
        shared = m_history.fork(prompt.first(intact));
    }
    // Sliding-window layers may not hold the window before the fork: the cache goes back to
    // where it can, and what follows runs again.
    const int kept = m_sequence->keepable(m_history.cached_size());
    if (kept < m_history.cached_size()) {
        m_history.truncate_cached(kept);
        shared = static_cast<int>(m_history.conversation().size());
    }
    m_sequence->truncate(kept);
    m_sequence->checkpoint();  // an edit of this turn's message comes back here

    GenerationStats stats;
    stats.prompt_tokens = static_cast<int>(prompt.size());
    stats.cached_tokens = m_history.cached_size();
    Notices notices = request.notices;
    const auto prefill = fit_prompt(request, shared, stats, notices);
    stats.prefilled_tokens = static_cast<int>(prefill.size());

    int dropped_while_decoding = 0;
    DecodeContext context{
        .backend = m_backend,
        .sequence = *m_sequence,
        .tokenizer = m_tokenizer,
        .history = m_history,
        .trie = request.grammar ? trie() : nullptr,
        .make_room =
            [&] {
                const int freed = make_room(request);
                dropped_while_decoding += freed;
                return freed;
            },
    };
    GenerationResult result;
    try {
        result = DecodeLoop(context, request, sink).run(prefill, std::move(stats));
    } catch (...) {
        m_history.truncate_cached(m_sequence->size());
        throw;
    }
    // Tokens planned for the cache but never fed (a cancelled prefill) leave the history.
    m_history.truncate_cached(m_sequence->size());
    result.stats.dropped_tokens += dropped_while_decoding;
    if (dropped_while_decoding > 0) {
        notices.push_back({.kind = NoticeKind::AnswerTrimmed,
                           .dropped = dropped_while_decoding,
                           .context_tokens = context_length()});
    }
    if (result.stats.stop_reason == StopReason::ContextFull)
        notices.push_back({.kind = NoticeKind::ContextFilled, .context_tokens = context_length()});
    result.notices = std::move(notices);
    return result;
}

Session::Overflow Session::overflow_frame(const GenerationRequest& request, int shared) const {
    // Conversation position -> cache position, for the prompt about to be laid out: cached
    // tokens before the fork, then every new token.
    const int cached = m_history.cached_before(shared);
    const auto position = [&](int logical) {
        return logical < shared ? m_history.cached_before(logical) : cached + (logical - shared);
    };
    int keep = std::clamp(request.keep_tokens, 0, static_cast<int>(request.prompt.size()));
    if (request.overflow == OverflowPolicy::TruncateMiddle) {
        // The first message after the kept start stays too (in a chat, the first question).
        const auto next =
            std::upper_bound(request.turn_starts.begin(), request.turn_starts.end(), keep);
        if (next != request.turn_starts.end()) keep = *next;
    }
    Overflow frame;
    frame.keep = position(keep);
    for (const int start : request.turn_starts) {
        if (start < static_cast<int>(request.prompt.size()))
            frame.turn_starts.push_back(position(start));
    }
    return frame;
}

std::vector<int32_t> Session::fit_prompt(const GenerationRequest& request, int shared,
                                         GenerationStats& stats, Notices& notices) {
    const std::span<const int32_t> fresh =
        std::span(request.prompt).subspan(static_cast<size_t>(shared));
    const int cached = m_history.cached_size();
    const int total = cached + static_cast<int>(fresh.size());
    const int capacity = context_length();
    // Under a dropping policy, room is kept for some of the answer too.
    const int headroom = answer_headroom(request, capacity);
    if (total + headroom <= capacity) {
        m_history.append(fresh);
        return {fresh.begin(), fresh.end()};
    }
    if (request.overflow == OverflowPolicy::Stop)
        throw ContextFullError({.needed = total + headroom, .capacity = capacity});
    const Overflow frame = overflow_frame(request, shared);
    const int latest = frame.turn_starts.empty() ? total - 1 : frame.turn_starts.back();
    const auto range = plan_overflow(total, frame.keep, total + headroom - capacity,
                                     std::max(total - latest, 1), frame.turn_starts);
    if (!range) {
        throw ContextFullError({.needed = total + headroom,
                                .capacity = capacity,
                                .kept = frame.keep,
                                .latest = total - latest,
                                .stop_policy = false});
    }
    const int start = range->start, end = range->start + range->count;
    if (start < cached) {
        const int from_cache = std::min(end, cached) - start;
        m_sequence->erase(start, from_cache);
        m_history.erase_cached(start, from_cache);
    }
    // The rest of the range falls on new tokens, which are simply not prefilled.
    const size_t skip_from = static_cast<size_t>(std::max(start, cached) - cached);
    const size_t skip_to = static_cast<size_t>(std::max(end, cached) - cached);
    m_history.append(fresh.first(skip_from));
    m_history.append(fresh.subspan(skip_from, skip_to - skip_from), false);
    m_history.append(fresh.subspan(skip_to));
    std::vector<int32_t> prefill(fresh.begin(), fresh.begin() + static_cast<long>(skip_from));
    prefill.insert(prefill.end(), fresh.begin() + static_cast<long>(skip_to), fresh.end());

    stats.dropped_tokens += range->count;
    notices.push_back({.kind = NoticeKind::PromptTrimmed,
                       .dropped = range->count,
                       .kept = frame.keep,
                       .conversation_tokens = total,
                       .context_tokens = capacity});
    return prefill;
}

int Session::make_room(const GenerationRequest& request) {
    if (request.overflow == OverflowPolicy::Stop) return 0;
    const int size = m_sequence->size();
    const int prompt_length = static_cast<int>(request.prompt.size());
    // Everything the prompt laid out is in the cache now, so the frame maps through the history.
    const Overflow frame = overflow_frame(request, prompt_length);
    const int needed = std::max(1, (context_length() - frame.keep) / 4);
    const auto range = plan_overflow(size, frame.keep, needed, 1, frame.turn_starts);
    if (!range) return 0;
    m_sequence->erase(range->start, range->count);
    m_history.erase_cached(range->start, range->count);
    return range->count;
}

}  // namespace hearth
