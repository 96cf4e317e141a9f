// Turns a conversation into the exact prompt text a model was trained on, using the model's own
// tokenizer.chat_template. When the template uses something Hearth's interpreter lacks, a
// built-in formatter for the detected family takes over and the reason is kept for the user;
// a model without a template continues plain text.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "engine/format/gguf_file.h"
#include "engine/text/chat_message.h"
#include "engine/text/jinja/template.h"
#include "engine/text/reasoning_splitter.h"
#include "engine/text/template_messages.h"
#include "engine/text/vocabulary.h"

namespace hearth {

// Values may be stored with settings: do not change or reuse.
enum class ChatFamily {
    None = 0,
    Llama2 = 1,
    Llama3 = 2,
    ChatMl = 3,
    Mistral = 4,
    Gemma = 5,
    Phi3 = 6,
    Zephyr = 7
};

// Guesses the family from the template text; None when nothing matches.
ChatFamily detect_chat_family(const std::string& source);

struct ChatRenderOptions {
    bool add_generation_prompt = true;
    // The last message, an assistant's answer so far, is left open for the model to go on with:
    // the conversation is rendered up to the end of its text, the template's end of turn and
    // generation prompt left out (transformers' continue_final_message).
    bool continue_final_message = false;
    // Passed as the template's `enable_thinking` (Qwen3, SmolLM3, QwQ, DeepSeek V3.1: false
    // makes the model answer without a reasoning block) and as `thinking` to templates that read
    // that instead (Granite 3.3). Unset leaves both undefined: the template's own default.
    std::optional<bool> enable_thinking;
    // gpt-oss's `reasoning_effort` ("low", "medium", "high"); unset: the template's default.
    std::optional<std::string> reasoning_effort;
    // OpenAI function definitions (see parse_tool_definitions); None: no tools offered.
    jinja::Value tools = jinja::Value(jinja::None{});
    // Other per-conversation variables (builtin_tools, model_identity, date_string, …); the
    // settings above win over a variable of the same name.
    jinja::Object extra_variables;
    std::optional<std::tm> now;  // what strftime_now() sees; the local time when empty
};

// The conversation choices that change what a template renders; front ends offer only these.
struct TemplateChoices {
    bool thinking = false;          // it reads enable_thinking (or thinking)
    bool reasoning_effort = false;  // it reads reasoning_effort (gpt-oss)
};

class ChatTemplate final {
public:
    // The model's template (or none), with its BOS/EOS token texts.
    static ChatTemplate from_model(const GgufFile& file, const Vocabulary& vocabulary);
    // `source` empty means no template. Empty token texts are left undefined in the template.
    ChatTemplate(std::string source, std::string bos_token, std::string eos_token);

    bool has_template() const { return !m_source.empty(); }
    // Set when the model's template could not be used and a built-in formatter renders instead.
    const std::string& fallback_reason() const { return m_fallback_reason; }
    ChatFamily family() const { return m_family; }
    // Whether the template reads `enable_thinking` (or `thinking`), so that
    // ChatRenderOptions::enable_thinking changes the prompt: front ends offer the choice only then.
    bool has_thinking_switch() const { return m_reads_enable_thinking || m_reads_thinking; }
    // Whether ChatRenderOptions::reasoning_effort changes the prompt (gpt-oss).
    bool has_reasoning_effort() const { return m_reads_reasoning_effort; }
    TemplateChoices choices() const { return {has_thinking_switch(), has_reasoning_effort()}; }
    // How the model marks reasoning in a generation that follows `prompt_text`, a prompt this
    // template rendered (a built-in formatter's prompt has no reasoning markup).
    ReasoningFormat reasoning_format(std::string_view prompt_text) const {
        return m_fallback_reason.empty() ? hearth::reasoning_format(m_source, prompt_text)
                                         : ReasoningFormat{};
    }

    // Throws jinja::TemplateRaised with the template's own message when it rejects the
    // conversation, and jinja::RenderError for other failures.
    std::string render(const jinja::Value& messages, const ChatRenderOptions& options) const;
    std::string render(const std::vector<ChatMessage>& messages,
                       const ChatRenderOptions& options) const;

private:
    std::string render_continuation(const std::vector<ChatMessage>& messages,
                                    ChatRenderOptions options) const;
    std::string render_builtin(const jinja::Value& messages, bool add_generation_prompt) const;

    std::string m_source;
    std::string m_bos_token;
    std::string m_eos_token;
    std::optional<jinja::Template> m_compiled;
    ChatFamily m_family = ChatFamily::None;
    ReasoningHandling m_reasoning;
    bool m_reads_enable_thinking = false;
    bool m_reads_thinking = false;
    bool m_reads_reasoning_effort = false;
    mutable std::string m_fallback_reason;
};

}  // namespace hearth
