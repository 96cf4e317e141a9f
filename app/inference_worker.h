// Lives on the engine thread: an adapter from queued signals to the engine's calls and back.
// It holds no engine policy (backend choice, warm sessions, fallbacks, memory checks and speed
// measurement are the engine's) and never touches a widget.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <chrono>
#include <memory>

#include "app/core/api_key_store.h"
#include "app/core/benchmark_result.h"
#include "app/core/metatypes.h"
#include "app/core/remote_connection.h"
#include "app/remote_answerer.h"
#include "engine/runtime/chat_request.h"
#include "engine/runtime/engine.h"

namespace hearth {

class InferenceWorker final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InferenceWorker)

public:
    InferenceWorker(std::atomic<bool>& stop_flag, std::atomic<bool>& cancel_load_flag);
    ~InferenceWorker() override;

public slots:
    // A local model answers from now on. Loading the model that is already loaded (a remote
    // engine answering meanwhile) returns to it at once: a remote choice keeps it loaded.
    void loadModel(const QString& path);
    // `choice` answers from now on (its API key read from the keyring here, off the GUI
    // thread); the local model stays loaded for a return to it.
    void useRemote(const hearth::core::RemoteChoice& choice);
    // How long a remote answer may send nothing before it has failed (RemoteEndpoint's
    // idle_timeout); applies to the next remote choice.
    void setRemoteIdleTimeout(int milliseconds);
    void generate(const hearth::ChatRequest& request);
    // `backend` and `kv_cache` as the settings store them: "auto", "cpu" or "vulkan:N"; "f16" or
    // "q8_0".
    void configure(int threads, int chunk_tokens, bool speculative, const QString& draft_model,
                   const QString& backend, const QString& kv_cache);
    // Prompt processing and generation speed on the loaded model (cancelled by the stop flag).
    void runBenchmark(int prompt_tokens, int generated_tokens);
    // Testing switch: the GPU backend's device fails as a lost device does after `submissions`
    // more submissions (nothing happens on the CPU backend).
    void injectDeviceLoss(int submissions);

signals:
    void loadProgress(int percent);
    // `choices`: what the model's chat template lets a conversation choose.
    void modelLoaded(const hearth::ModelInfo& info, int context_length,
                     hearth::TemplateChoices choices);
    // The loaded model's facts after a settings change that alters them (the KV cache type).
    void modelInfoChanged(const hearth::ModelInfo& info, int context_length);
    // An answer's prompt is laid out, before it is read: its length, the part reused from the
    // cache, the part to read (GenerationSink::on_prompt).
    void generationStarted(int conversation, const hearth::GenerationStats& prompt);
    void prefillProgress(int conversation, int done, int total);
    void tokensReady(int conversation, const hearth::TokenChunk& chunk);
    void generationFinished(int conversation, const hearth::GenerationResult& result);
    // A remote answer failed: `partial` is what had arrived, `message` names the cause.
    void generationFailed(int conversation, const hearth::GenerationResult& partial,
                          const QString& message);
    // A local answer failed before it ended (what arrived was already sent as tokensReady).
    void answerFailed(int conversation, const QString& message);
    // A model could not be loaded; the one before it, if any, stays.
    void loadFailed(const QString& message);
    // A remote engine answers from now on.
    void remoteChosen(const hearth::core::RemoteChoice& choice);
    // A remote engine could not be chosen; whatever answered before still does.
    void remoteRefused(const QString& message);
    // Anything else that went wrong (a setting that could not be applied, a draft model not
    // used): it ends no answer and no load. Each failure has its own signal so that a window
    // receiving them queued, after it has moved on, never takes one for another.
    void errorOccurred(const QString& message);
    // The backend now running the model (after a load, a settings change or a fallback), and
    // why it is not the one asked for, if it is not.
    void backendChanged(const QString& name, const QString& notice);
    void benchmarkProgress(int percent);
    void benchmarkFinished(const hearth::core::BenchmarkResult& result);
    void benchmarkFailed(const QString& message);

private:
    LoadControl load_control();
    void report_backend(const BackendReport& report);
    void report_failed_load(const BackendReport& before, const QString& message);
    void apply_draft();
    void generate_remotely(const ChatRequest& request);

    std::atomic<bool>& m_stop;
    std::atomic<bool>& m_cancel_load;
    DecodeSettings m_decode;
    bool m_loading = false;  // backend reports wait until the model itself is announced
    QString m_model_path, m_model_sha256;
    QString m_draft_path;    // the draft model the settings ask for; empty: none
    QString m_loaded_draft;  // the one the engine drafts with now
    // Connections' API keys, where the connections dialog keeps them (ApiKeyStore::for_app).
    core::ApiKeyStore m_keys;
    std::chrono::milliseconds m_remote_idle_timeout{120'000};
    // What answers instead of the loaded model, when the user chose a remote engine.
    std::unique_ptr<RemoteAnswerer> m_remote;
    Engine m_engine;  // declared last: it goes first
};

}  // namespace hearth
