// The engine as every front end (the window's worker, hearth-cli, the server) uses it: loads a
// model after the free-memory check onto the backend a preference selects, keeps the warm
// conversations' KV caches, answers chat requests and raw token prompts (resuming on the CPU
// when a GPU is lost mid-answer), and measures speed. It returns facts (results, notices,
// typed errors); front ends phrase them. One thread at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/compute/backend.h"
#include "engine/generation/generation_request.h"
#include "engine/generation/notice.h"
#include "engine/grammar/json_grammar.h"
#include "engine/model/model.h"
#include "engine/model/model_info.h"
#include "engine/runtime/backend_preference.h"
#include "engine/runtime/backend_selection.h"
#include "engine/runtime/chat_request.h"
#include "engine/runtime/draft_model.h"
#include "engine/runtime/session_pool.h"
#include "engine/runtime/speed_measurement.h"
#include "engine/text/chat_template.h"
#include "engine/text/tokenizer.h"

namespace hearth {

// The backend now running the model, and why it is not the one asked for, if it is not.
struct BackendReport {
    std::string name;
    bool on_device = false;
    std::optional<Notice> notice;

    bool operator==(const BackendReport&) const = default;
};

struct EngineOptions {
    BackendSelectorOptions backends;  // the self-test model and the pipeline cache
    BackendPreference backend;        // the backend a load selects
    size_t session_budget_bytes = kDefaultSessionBudgetBytes;
    bool check_free_memory = true;
    // Told whenever the backend changes: after a load, a new preference, or a fallback.
    std::function<void(const BackendReport&)> on_backend_changed;
};

struct LoadControl {
    // Percent of the current stage: mapping the file, then uploading to a GPU.
    std::function<void(int percent)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

// How the decode loop runs, the same for every conversation.
struct DecodeSettings {
    // Greedy answers verify drafts in batched passes: the draft model's (load_draft), else
    // prompt-lookup drafts.
    bool speculative = false;
    int chunk_tokens = 8;  // tokens per hand-off to the sink
};

class Engine final {
public:
    explicit Engine(EngineOptions options = {});
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Throws InsufficientMemoryError, LoadError, LoadCancelled; the previous model then stays
    // loaded, on a backend.
    // The free-memory check is made at `context_length` tokens (0: the model's default).
    ModelInfo load(const std::filesystem::path& file, const LoadControl& control = {},
                   int context_length = 0);
    // Moves the loaded model to `preference`'s backend when it differs (a new thread count
    // included). Never leaves a loaded model without a backend.
    void set_backend(const BackendPreference& preference, const LoadControl& control = {});
    const BackendPreference& backend_preference() const { return m_options.backend; }
    // The loaded model's facts, its KV figures in the cache type the preference now asks for.
    const ModelInfo& model_info() const;

    bool loaded() const { return m_model != nullptr; }
    // These throw std::logic_error when no model is loaded.
    const Model& model() const;
    const Tokenizer& tokenizer() const;
    const ChatTemplate& chat_template() const;
    Backend& backend();
    BackendReport backend_report() const { return m_report; }
    // `requested` tokens, or the model's default (trained length, capped) for 0.
    int context_length(int requested = 0) const;

    // One answer to a conversation. Throws ContextFullError (nothing changed), the chat
    // template's errors, and a GPU's errors where the answer cannot resume on the CPU.
    GenerationResult chat(const ChatRequest& request, const DecodeSettings& settings,
                          const GenerationSink& sink = {},
                          const std::atomic<bool>* cancel = nullptr);
    // A raw token prompt in conversation `conversation`'s session.
    GenerationResult generate(int64_t conversation, int context_length,
                              const GenerationRequest& request, const GenerationSink& sink = {});
    // The prompt behind a chat request, with the overflow frame (turn starts, kept start).
    GenerationRequest chat_generation_request(const ChatRequest& request,
                                              const DecodeSettings& settings, int context_length);
    // A raw text prompt (a document to continue, no chat template), with `options`' settings
    // (its messages are not read).
    GenerationRequest text_generation_request(std::string_view text, const ChatRequest& options,
                                              const DecodeSettings& settings);

    // A smaller model of the same vocabulary drafts for speculative answers from now on (see
    // DecodeSettings::speculative), on the CPU; greedy answers stay token for token the model's
    // own. Throws LoadError for the file, DraftMismatchError for another vocabulary, and
    // std::logic_error with no model loaded. Loading another model drops the draft.
    void load_draft(const std::filesystem::path& file);
    void unload_draft() { m_draft.reset(); }
    bool has_draft() const { return m_draft != nullptr; }

    SpeedMeasurement measure_speed(int prompt_tokens, int generated_tokens,
                                   const SpeedControl& control = {});

    const SessionPool& sessions() const { return m_sessions; }
    // Testing switch: a GPU backend's device fails as a lost device does after `submissions`
    // more submissions (nothing happens on the CPU); `while_running`: the failing submission is
    // queued and run, and its result reports the loss (vulkan::Device::Loss::WhileRunning).
    void inject_device_loss(int submissions, bool while_running = false);

private:
    void require_model() const;
    // The settings every request takes from its ChatRequest: limits, sampler, JSON mode or
    // schema (throws SchemaError), stop strings, hand-off.
    void apply_options(const ChatRequest& chat, const DecodeSettings& settings,
                       GenerationRequest& request);
    BackendSelection select_backend(const Model& model, const LoadControl& control);
    void install(BackendSelection selection);
    void fall_back_to_cpu(const Notice& notice);
    GenerationResult resume_on_cpu(int64_t conversation, int context_length,
                                   const GenerationRequest& failed, const TokenChunk& streamed,
                                   const GenerationSink& sink, Notice lost);

    EngineOptions m_options;
    BackendSelector m_selector;
    std::unique_ptr<Model> m_model;
    ModelInfo m_info;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::unique_ptr<ChatTemplate> m_chat_template;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<DraftModel> m_draft;
    BackendReport m_report;
    std::shared_ptr<const JsonGrammar> m_json_object;  // built on the first JSON-mode request
    SessionPool m_sessions;  // declared last: its sessions go before the backend they use
};

}  // namespace hearth
