// An answer's figures in words: under each answer and in the status line once it ends, and in
// the status line while it streams. The engine sends raw counts and nanoseconds; they are
// worded here.
#pragma once

#include <QString>

#include <cstdint>

#include "app/core/conversation.h"
#include "engine/generation/generation_stats.h"
#include "engine/generation/token_chunk.h"

namespace hearth::ui {

// Why an answer ended, as a reader says it ("cut off at the token limit").
QString stop_reason_text(StopReason reason);

// Where a remote engine's answer comes from: "llama-70b · on gpu-box" (the model id and the
// connection's name).
QString remote_source_text(const QString& model, const QString& connection);

// "61 tokens · 30.0 tok/s · first token in 42 ms · 100 of 113 prompt tokens reused · ended by
// the model".
QString answer_figures_text(const GenerationStats& stats);
// The figures under an answer: a remote engine's answer says first where it came from.
QString answer_figures_text(const core::GenerationRecord& record);

// The header of a reasoning block while the model reasons: "Thinking… 42 tokens".
QString thinking_progress_text(int tokens);
// Once it has: "Thought for 3.2 s · 154 tokens" (a figure that is 0 is not known and left out).
QString thinking_summary_text(int tokens, int64_t nanoseconds);

// How the answer streaming now is going, from the figures the engine sends while it runs.
class AnswerProgress final {
public:
    // The prompt laid out, before it is read (again after a GPU lost mid-answer: the prompt
    // then holds the tokens streamed so far).
    void prompt_laid_out(const GenerationStats& prompt);
    void add(const TokenChunk& chunk);

    int tokens() const { return m_tokens; }
    // The tokens the context holds: the prompt kept in the cache and the answer's tokens since.
    int context_used() const { return m_prompt_in_cache + m_tokens - m_tokens_in_prompt; }
    // "Writing the answer: 42 tokens · 35.2 tok/s · first token in 120 ms", or "Thinking…: …"
    // while every token so far is reasoning.
    QString status_text() const;
    bool thinking() const { return m_reasoning_tokens > 0 && !m_answering; }

private:
    int m_prompt_in_cache = 0;
    int m_tokens_in_prompt = 0;  // answer tokens the prompt already holds
    int m_tokens = 0;
    int m_reasoning_tokens = 0;
    bool m_answering = false;  // answer text has arrived
    int64_t m_first_ns = -1;   // when the first and the latest token were ready
    int64_t m_last_ns = -1;
};

}  // namespace hearth::ui
