#include "engine/text/reasoning_splitter.h"

#include <algorithm>
#include <span>

namespace hearth {
namespace {

constexpr std::string_view kOpenThink = "<think>";
constexpr std::string_view kCloseThink = "</think>";
constexpr std::string_view kChannel = "<|channel|>";
constexpr std::string_view kMessage = "<|message|>";
constexpr std::string_view kStart = "<|start|>";
constexpr std::string_view kEnd = "<|end|>";
constexpr std::string_view kAnalysis = "analysis";
// What ends a part: the reasoning block's close; a harmony message's end, or the next header.
constexpr std::string_view kThinkBoundaries[] = {kCloseThink};
constexpr std::string_view kHarmonyBoundaries[] = {kEnd, kStart, kChannel};
// A harmony header longer than this is not one: the text goes out as answer rather than wait.
constexpr size_t kLongestHeader = 256;

bool is_space(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

bool all_space(std::string_view text) {
    return std::all_of(text.begin(), text.end(), is_space);
}

// How many bytes at the end of `text` could begin `marker`: they wait for the next push.
size_t partial_marker(std::string_view text, std::string_view marker) {
    const size_t longest = std::min(text.size(), marker.size() - 1);
    for (size_t length = longest; length > 0; --length) {
        if (marker.starts_with(text.substr(text.size() - length))) return length;
    }
    return 0;
}

// The channel a harmony header names (`<|channel|>analysis`, `<|channel|>commentary to=…`).
std::string_view header_channel(std::string_view header) {
    const size_t at = header.find(kChannel);
    if (at == std::string_view::npos) return {};
    std::string_view channel = header.substr(at + kChannel.size());
    const size_t end = channel.find_first_of(" <");
    return end == std::string_view::npos ? channel : channel.substr(0, end);
}

// Where the harmony prompt leaves the model: after `<|start|>assistant` it writes a header;
// after a header's `<|message|>` it is inside that channel's message.
ReasoningStart harmony_start(std::string_view prompt) {
    const size_t message = prompt.rfind(kMessage);
    if (message == std::string_view::npos) return ReasoningStart::MayOpen;
    const std::string_view after = prompt.substr(message);
    if (after.find(kEnd) != std::string_view::npos || after.find(kStart) != std::string_view::npos)
        return ReasoningStart::MayOpen;  // that message is closed: a new header comes next
    const size_t header = prompt.substr(0, message).rfind(kStart);
    const auto channel =
        header_channel(prompt.substr(header == std::string_view::npos ? 0 : header));
    return channel == kAnalysis ? ReasoningStart::Reasoning : ReasoningStart::Answer;
}

ReasoningStart think_tags_start(std::string_view prompt) {
    const size_t open = prompt.rfind(kOpenThink);
    const size_t close = prompt.rfind(kCloseThink);
    if (open != std::string_view::npos && (close == std::string_view::npos || open > close))
        return ReasoningStart::Reasoning;
    // Qwen3 with thinking off ends its generation prompt with an empty block.
    if (close != std::string_view::npos && all_space(prompt.substr(close + kCloseThink.size())))
        return ReasoningStart::Answer;
    return ReasoningStart::MayOpen;
}

}  // namespace

bool is_harmony_marker(std::string_view token_text) {
    return token_text == kChannel || token_text == kMessage || token_text == kStart ||
           token_text == kEnd || token_text == "<|constrain|>";
}

std::string reopened_reasoning(ReasoningFormat format, std::string_view reasoning) {
    if (format.markup == ReasoningMarkup::None) return {};
    if (format.start == ReasoningStart::Reasoning) return std::string(reasoning);
    if (format.markup == ReasoningMarkup::ThinkTags)
        return std::string(kOpenThink) + "\n" + std::string(reasoning);
    if (format.start == ReasoningStart::MayOpen)
        return std::string(kChannel) + std::string(kAnalysis) + std::string(kMessage) +
               std::string(reasoning);
    return {};  // inside gpt-oss's final message already: reasoning cannot come back
}

ReasoningFormat reasoning_format(std::string_view template_source, std::string_view prompt_text) {
    const auto mentions = [&](std::string_view text) {
        return template_source.find(text) != std::string_view::npos;
    };
    if (mentions(kChannel) && mentions(kMessage)) {
        return {.markup = ReasoningMarkup::Harmony, .start = harmony_start(prompt_text)};
    }
    if (mentions(kOpenThink) || mentions(kCloseThink)) {
        return {.markup = ReasoningMarkup::ThinkTags, .start = think_tags_start(prompt_text)};
    }
    return {};
}

ReasoningSplitter::ReasoningSplitter(ReasoningFormat format) : m_markup(format.markup) {
    const bool harmony = format.markup == ReasoningMarkup::Harmony;
    switch (format.start) {
        case ReasoningStart::Reasoning:
            m_state = State::Reasoning;
            break;
        case ReasoningStart::MayOpen:
            m_state = harmony ? State::Header : State::Opening;
            break;
        case ReasoningStart::Answer:
            m_state = harmony ? State::Answer : State::Plain;
            break;
    }
    if (format.markup == ReasoningMarkup::None) m_state = State::Plain;
    // Only text after a marker loses its leading whitespace; plain output stays as it came.
    m_at_part_start = m_state != State::Plain;
}

SplitText ReasoningSplitter::push(std::string_view text) {
    SplitText out;
    if (m_state == State::Plain) {
        give_out(out, text);
        return out;
    }
    m_pending += text;
    step(out);
    return out;
}

SplitText ReasoningSplitter::flush() {
    SplitText out;
    // An unfinished harmony header is markup, not text; anything else goes where it was going.
    if (m_state == State::Header) {
        m_pending.clear();
        return out;
    }
    if (m_state == State::Opening) m_state = State::Plain;
    give_out(out, m_pending);
    m_pending.clear();
    return out;
}

void ReasoningSplitter::step(SplitText& out) {
    bool progress = true;
    while (progress && !m_pending.empty()) {
        switch (m_state) {
            case State::Opening:
                progress = step_opening(out);
                break;
            case State::Header:
                progress = step_header();
                break;
            case State::Reasoning:
            case State::Answer:
                progress = step_content(out);
                break;
            case State::Plain:
                give_out(out, m_pending);
                m_pending.clear();
                progress = false;
                break;
        }
    }
}

// At the start of a `<think>` model's output: an opening marker (after any whitespace) starts
// the reasoning; anything else means the model answers straight away.
bool ReasoningSplitter::step_opening(SplitText& out) {
    const size_t text = m_pending.find_first_not_of(" \n\t\r");
    if (text == std::string::npos) return false;
    const std::string_view rest = std::string_view(m_pending).substr(text);
    if (rest.starts_with(kOpenThink)) {
        m_pending.erase(0, text + kOpenThink.size());
        m_state = State::Reasoning;
        m_at_part_start = true;
        return true;
    }
    if (kOpenThink.starts_with(rest)) return false;  // may still become the marker
    m_state = State::Plain;
    m_at_part_start = false;
    return true;
}

// Between harmony messages: `<|start|>assistant<|channel|>NAME<|message|>` says which channel
// the next message is on. Output that is not a header at all is answer.
bool ReasoningSplitter::step_header() {
    const size_t message = m_pending.find(kMessage);
    if (message != std::string::npos) {
        const auto channel = header_channel(std::string_view(m_pending).substr(0, message));
        m_state = channel == kAnalysis ? State::Reasoning : State::Answer;
        m_pending.erase(0, message + kMessage.size());
        m_at_part_start = true;
        return true;
    }
    const std::string_view head = std::string_view(m_pending).substr(0, 2);
    const bool looks_like_header = std::string_view("<|").starts_with(head);
    if (!looks_like_header || m_pending.size() > kLongestHeader) {
        m_state = State::Plain;
        m_at_part_start = false;
        return true;
    }
    return false;
}

// Inside a part: text up to the marker that ends it goes out; a possible partial marker at the
// end waits.
bool ReasoningSplitter::step_content(SplitText& out) {
    const bool harmony = m_markup == ReasoningMarkup::Harmony;
    const std::span<const std::string_view> markers =
        harmony ? std::span<const std::string_view>(kHarmonyBoundaries) : kThinkBoundaries;
    size_t found = std::string::npos;
    std::string_view marker;
    for (const auto candidate : markers) {
        const size_t at = m_pending.find(candidate);
        if (at < found) {
            found = at;
            marker = candidate;
        }
    }
    if (found == std::string::npos) {
        size_t held = 0;
        for (const auto candidate : markers)
            held = std::max(held, partial_marker(m_pending, candidate));
        give_out(out, std::string_view(m_pending).substr(0, m_pending.size() - held));
        m_pending.erase(0, m_pending.size() - held);
        return false;
    }
    give_out(out, std::string_view(m_pending).substr(0, found));
    // `<|end|>` closes the message; a header that follows directly stays to be read.
    const size_t consumed = marker == kEnd || marker == kCloseThink ? marker.size() : 0;
    m_pending.erase(0, found + consumed);
    m_state = harmony ? State::Header : State::Plain;
    m_at_part_start = true;
    return true;
}

void ReasoningSplitter::give_out(SplitText& out, std::string_view text) {
    if (m_at_part_start) {
        const size_t first = text.find_first_not_of(" \n\t\r");
        if (first == std::string_view::npos) return;
        text.remove_prefix(first);
        m_at_part_start = false;
    }
    (m_state == State::Reasoning ? out.reasoning : out.answer) += text;
}

}  // namespace hearth
