// One conversation as the window keeps it: messages in a tree (editing a message or
// regenerating an answer adds a sibling, so every branch stays reachable), the branch on
// screen, and the conversation's own generation settings.
#pragma once

#include <QString>

#include <optional>
#include <vector>

#include "engine/generation/generation_request.h"

namespace hearth::core {

struct ConversationSettings {
    QString system_prompt;
    SamplerSettings sampler;
    int max_tokens = 512;
    int context_length = 0;  // 0: the model's trained length, capped at 4096
    OverflowPolicy overflow = OverflowPolicy::RollingWindow;
    bool json_mode = false;
    bool random_seed = true;  // a fresh seed per answer; otherwise sampler.seed
    // The chat template's enable_thinking; unset leaves the template's default (Qwen3 and
    // SmolLM3 think). Kept across models: a template that does not read it ignores it.
    std::optional<bool> enable_thinking;
    // The chat template's reasoning_effort ("low", "medium", "high"); empty: its default.
    QString reasoning_effort;
};

// How an answer was made: kept with it in the history.
struct GenerationRecord {
    QString model_file;  // a local answer's model; empty for a remote one
    QString model_sha256;
    QString backend;
    uint64_t seed = 0;
    SamplerSettings sampler;
    GenerationStats stats;
    // A remote engine's answer: the connection (its name and base URL) and the id of the model
    // the server answered with; all empty for a local answer.
    QString connection;
    QString connection_url;
    QString remote_model;

    bool remote() const { return !remote_model.isEmpty(); }
};

struct Message {
    int id = 0;
    int parent = -1;  // -1: a first message
    QString role;     // "user" or "assistant"
    QString text;
    // An answer's reasoning, apart from its text (the answer); its token count and time are in
    // the generation's stats.
    QString reasoning;
    qint64 created_ms = 0;  // since the epoch
    bool finished = true;   // false while streaming, or if the answer was cut off
    std::optional<GenerationRecord> generation;
};

class Conversation final {
public:
    explicit Conversation(int id = 0, QString title = {});

    // A message as stored (from the history or an import): ids are kept.
    void restore(Message message);
    qint64 created_ms() const { return m_created_ms; }
    void set_created_ms(qint64 when) { m_created_ms = when; }

    int id() const { return m_id; }
    void set_id(int id) { m_id = id; }
    const QString& title() const { return m_title; }
    void set_title(QString title) { m_title = std::move(title); }
    ConversationSettings& settings() { return m_settings; }
    const ConversationSettings& settings() const { return m_settings; }

    // Adds a message under `parent` (-1 for a first message) and shows its branch.
    int add(int parent, const QString& role, const QString& text, bool finished = true);
    Message* find(int id);
    const Message* find(int id) const;
    const std::vector<Message>& messages() const { return m_messages; }

    // The messages on screen, first to last.
    std::vector<int> thread() const;
    int leaf() const { return m_leaf; }
    // Messages sharing `id`'s parent, in the order they were made (`id` among them).
    std::vector<int> siblings(int id) const;
    // Shows the branch through `id`: down to its most recent descendant.
    void show_branch(int id);
    // Shows the thread from its first message to `id`, and nothing after it: what an answer to
    // `id` is asked from.
    void show_thread_to(int id);

private:
    int m_id;
    QString m_title;
    ConversationSettings m_settings;
    std::vector<Message> m_messages;
    int m_next_id = 1;
    int m_leaf = -1;
    qint64 m_created_ms = 0;
};

}  // namespace hearth::core
