#include "engine/text/chat_template.h"

#include <spdlog/spdlog.h>

#include "engine/text/jinja/access.h"
#include "engine/text/jinja/parser.h"

namespace hearth {
namespace {

// The variable Qwen3's template introduced for switching reasoning off; SmolLM3, QwQ and
// DeepSeek V3.1 read it too. Granite 3.3 reads `thinking` (true switches reasoning on).
constexpr const char* kEnableThinking = "enable_thinking";
constexpr const char* kThinking = "thinking";
constexpr const char* kReasoningEffort = "reasoning_effort";

struct Turn {
    std::string role;
    std::string content;
};

// Content sent as a list of text parts reads as the parts joined.
std::string content_text(const jinja::Value& content) {
    if (!content.is_array()) return content.str();
    std::string text;
    for (const auto& part : content.as_array()) text += jinja::get_attribute(part, "text").str();
    return text;
}

std::vector<Turn> turns_of(const jinja::Value& messages) {
    std::vector<Turn> turns;
    for (const auto& message : messages.as_array()) {
        turns.push_back({jinja::get_attribute(message, "role").str(),
                         content_text(jinja::get_attribute(message, "content"))});
    }
    return turns;
}

std::string trimmed(const std::string& text) {
    return jinja::strip(text, "", true, true);
}

// Families without a system role fold the system prompt into the first user message, written
// as `before` + system + `after` in front of it.
std::vector<Turn> fold_system(std::vector<Turn> turns, const std::string& before,
                              const std::string& after) {
    if (turns.empty() || turns.front().role != "system") return turns;
    const std::string system = turns.front().content;
    turns.erase(turns.begin());
    if (!turns.empty() && turns.front().role == "user") {
        turns.front().content = before + system + after + turns.front().content;
    }
    return turns;
}

std::tm local_now() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    return local;
}

}  // namespace

ChatFamily detect_chat_family(const std::string& source) {
    const auto has = [&](const char* marker) { return source.find(marker) != std::string::npos; };
    if (has("<|start_header_id|>")) return ChatFamily::Llama3;
    if (has("<|im_start|>")) return ChatFamily::ChatMl;
    if (has("<start_of_turn>")) return ChatFamily::Gemma;
    if (has("[INST]")) return has("<<SYS>>") ? ChatFamily::Llama2 : ChatFamily::Mistral;
    if (has("<|user|>") && has("<|end|>")) return ChatFamily::Phi3;
    if (has("<|user|>")) return ChatFamily::Zephyr;
    return ChatFamily::None;
}

ChatTemplate ChatTemplate::from_model(const GgufFile& file, const Vocabulary& vocabulary) {
    const auto token_text = [&](int32_t id) {
        return vocabulary.valid(id) ? std::string(vocabulary.tokens[id]) : std::string{};
    };
    return ChatTemplate(file.get_string("tokenizer.chat_template").value_or(""),
                        token_text(vocabulary.bos), token_text(vocabulary.eos));
}

ChatTemplate::ChatTemplate(std::string source, std::string bos_token, std::string eos_token)
    : m_source(std::move(source)),
      m_bos_token(std::move(bos_token)),
      m_eos_token(std::move(eos_token)) {
    if (m_source.empty()) return;
    m_family = detect_chat_family(m_source);
    try {
        m_compiled.emplace(m_source);
        m_reasoning = reasoning_handling(m_source);
        m_reads_enable_thinking = m_compiled->reads(kEnableThinking);
        m_reads_thinking = m_compiled->reads(kThinking);
        m_reads_reasoning_effort = m_compiled->reads(kReasoningEffort);
    } catch (const jinja::RenderError& error) {
        if (m_family == ChatFamily::None) throw;
        m_fallback_reason = error.what();
        spdlog::warn("chat template: {}; using the built-in format of its family instead",
                     m_fallback_reason);
    }
}

std::string ChatTemplate::render(const std::vector<ChatMessage>& messages,
                                 const ChatRenderOptions& options) const {
    if (options.continue_final_message) return render_continuation(messages, options);
    return render(template_messages(messages, m_reasoning), options);
}

// Templates have no switch for an open last turn, so the finished conversation is rendered and
// cut after the answer's text, where the template writes its end of turn.
std::string ChatTemplate::render_continuation(const std::vector<ChatMessage>& messages,
                                              ChatRenderOptions options) const {
    if (messages.empty() || messages.back().role != "assistant")
        throw jinja::RenderError("only an assistant's answer can be continued");
    options.continue_final_message = false;
    const std::string& answer = messages.back().content;
    const std::string core = trimmed(answer);
    if (core.empty()) {  // nothing written yet: the answer starts as any answer does
        options.add_generation_prompt = true;
        std::string text = render(std::vector(messages.begin(), messages.end() - 1), options);
        // Cut off while it reasoned: it goes on reasoning where it stopped.
        const std::string& reasoning = messages.back().reasoning;
        if (!reasoning.empty()) text += reopened_reasoning(reasoning_format(text), reasoning);
        return text;
    }
    options.add_generation_prompt = false;
    const std::string text = render(template_messages(messages, m_reasoning), options);
    if (const size_t at = text.rfind(answer); at != std::string::npos)
        return text.substr(0, at + answer.size());
    // Most templates trim the answer; the model is shown its own trailing spaces and newlines
    // all the same, since that is where it goes on.
    if (const size_t at = text.rfind(core); at != std::string::npos) {
        const size_t core_end = answer.rfind(core) + core.size();
        return text.substr(0, at + core.size()) + answer.substr(core_end);
    }
    throw jinja::RenderError(
        "this model's chat template rewrites the answer's text, so the answer cannot be "
        "continued; regenerate it with a higher token limit instead");
}

std::string ChatTemplate::render(const jinja::Value& messages,
                                 const ChatRenderOptions& options) const {
    if (!has_template()) {
        std::string text;  // plain continuation: the conversation is one running text
        for (const auto& turn : turns_of(messages)) text += turn.content;
        return text;
    }
    if (m_compiled) {
        jinja::Object variables;
        variables.set("messages", messages);
        variables.set("add_generation_prompt", jinja::Value(options.add_generation_prompt));
        variables.set("tools", options.tools);
        variables.set("documents", jinja::Value(jinja::None{}));
        if (!m_bos_token.empty()) variables.set("bos_token", jinja::Value(m_bos_token));
        if (!m_eos_token.empty()) variables.set("eos_token", jinja::Value(m_eos_token));
        for (const auto& [key, value] : options.extra_variables.entries())
            variables.set(key, value);
        if (options.enable_thinking) {
            variables.set(kEnableThinking, jinja::Value(*options.enable_thinking));
            if (m_reads_thinking) variables.set(kThinking, jinja::Value(*options.enable_thinking));
        }
        if (options.reasoning_effort)
            variables.set(kReasoningEffort, jinja::Value(*options.reasoning_effort));
        try {
            return m_compiled->render(variables, options.now.value_or(local_now()));
        } catch (const jinja::UnsupportedTemplate& error) {
            if (m_family == ChatFamily::None) throw;
            m_fallback_reason = error.what();
            spdlog::warn("chat template: {}; using the built-in format of its family instead",
                         m_fallback_reason);
        }
    }
    return render_builtin(messages, options.add_generation_prompt);
}

// The families' published formats, as their reference templates render simple conversations.
std::string ChatTemplate::render_builtin(const jinja::Value& messages,
                                         bool add_generation_prompt) const {
    std::string out;
    switch (m_family) {
        case ChatFamily::Llama3:
            out = m_bos_token;
            for (const auto& t : turns_of(messages)) {
                out += "<|start_header_id|>" + t.role + "<|end_header_id|>\n\n" +
                       trimmed(t.content) + "<|eot_id|>";
            }
            if (add_generation_prompt) out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
            return out;
        case ChatFamily::ChatMl:
            for (const auto& t : turns_of(messages))
                out += "<|im_start|>" + t.role + "\n" + t.content + "<|im_end|>\n";
            if (add_generation_prompt) out += "<|im_start|>assistant\n";
            return out;
        case ChatFamily::Llama2:
            for (const auto& t : fold_system(turns_of(messages), "<<SYS>>\n", "\n<</SYS>>\n\n")) {
                if (t.role == "user")
                    out += m_bos_token + "[INST] " + trimmed(t.content) + " [/INST]";
                else
                    out += " " + trimmed(t.content) + " " + m_eos_token;
            }
            return out;
        case ChatFamily::Mistral:
            out = m_bos_token;
            for (const auto& t : fold_system(turns_of(messages), "", "\n\n")) {
                if (t.role == "user")
                    out += "[INST] " + t.content + " [/INST]";
                else
                    out += t.content + m_eos_token;
            }
            return out;
        case ChatFamily::Gemma:
            out = m_bos_token;
            for (const auto& t : fold_system(turns_of(messages), "", "\n\n")) {
                out += "<start_of_turn>" + (t.role == "assistant" ? std::string("model") : t.role) +
                       "\n" + trimmed(t.content) + "<end_of_turn>\n";
            }
            if (add_generation_prompt) out += "<start_of_turn>model\n";
            return out;
        case ChatFamily::Phi3:
            for (const auto& t : turns_of(messages)) {
                out += "<|" + t.role + "|>\n" + t.content + "<|end|>\n";
            }
            out += add_generation_prompt ? "<|assistant|>\n" : m_eos_token;
            return out;
        case ChatFamily::Zephyr:
            for (const auto& t : turns_of(messages))
                out += "<|" + t.role + "|>\n" + t.content + m_eos_token + "\n";
            if (add_generation_prompt) out += "<|assistant|>\n";
            return out;
        case ChatFamily::None:
            break;
    }
    throw jinja::RenderError("no chat format is known for this model");
}

}  // namespace hearth
