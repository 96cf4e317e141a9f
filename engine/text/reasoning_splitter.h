// Separates a model's reasoning from its answer while the text streams. Models mark reasoning
// in one of two ways: a `<think>…</think>` block before the answer (Qwen3, DeepSeek-R1 distills,
// QwQ, SmolLM3) or gpt-oss's harmony channels (`<|channel|>analysis<|message|>…<|end|>` before
// `<|start|>assistant<|channel|>final<|message|>…`). Which one, and whether the generation
// starts inside the reasoning already, is read from the template and the rendered prompt's
// tail, never guessed from the output. Every front end gets the split from here.
#pragma once

#include <string>
#include <string_view>

namespace hearth {

// Values are passed between threads, not stored.
enum class ReasoningMarkup {
    None,       // the output is all answer
    ThinkTags,  // `<think>…</think>`
    Harmony,    // gpt-oss's channels
};

// Where the generation begins relative to the markup.
enum class ReasoningStart {
    Answer,     // the prompt closed the reasoning already (Qwen3 with thinking off)
    MayOpen,    // the model may open a reasoning block first (Qwen3 with thinking on)
    Reasoning,  // the prompt ends inside an open block (DeepSeek-R1 distills add `<think>\n`)
};

struct ReasoningFormat {
    ReasoningMarkup markup = ReasoningMarkup::None;
    ReasoningStart start = ReasoningStart::Answer;

    bool operator==(const ReasoningFormat&) const = default;
};

// How a model whose template is `template_source` marks reasoning, for a generation that
// follows `prompt_text` (the rendered prompt).
ReasoningFormat reasoning_format(std::string_view template_source, std::string_view prompt_text);

// Whether `token_text` is one of gpt-oss's message markers (`<|channel|>`, `<|message|>`, …):
// control tokens that stay out of text, except that the splitter must read them.
bool is_harmony_marker(std::string_view token_text);

// What follows a prompt in `format` so that the model is back inside `reasoning` it had
// written (an answer cut off while it reasoned, continued): the opening markup the prompt lacks,
// then the reasoning. Empty where the markup has no reasoning to go back to.
std::string reopened_reasoning(ReasoningFormat format, std::string_view reasoning);

struct SplitText {
    std::string reasoning;
    std::string answer;
};

class ReasoningSplitter final {
public:
    explicit ReasoningSplitter(ReasoningFormat format = {});

    // Text that may end in the middle of a marker: what could still be one is held back.
    SplitText push(std::string_view text);
    // The end of the stream: held-back text goes where it was heading.
    SplitText flush();

    // Whether the text so far sits inside reasoning (markers included).
    bool in_reasoning() const { return m_state == State::Reasoning; }
    // Whether the text so far has not yet said which part it belongs to (a possible opening
    // marker, a harmony header): tokens read meanwhile belong to whatever follows.
    bool deciding() const { return m_state == State::Opening || m_state == State::Header; }

private:
    enum class State { Opening, Header, Reasoning, Answer, Plain };

    void step(SplitText& out);
    bool step_opening(SplitText& out);
    bool step_header();
    bool step_content(SplitText& out);
    void give_out(SplitText& out, std::string_view text);

    ReasoningMarkup m_markup;
    State m_state;
    std::string m_pending;        // text not yet given out
    bool m_at_part_start = true;  // leading whitespace of a part is dropped
};

}  // namespace hearth
