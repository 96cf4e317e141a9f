// Lives on the engine thread and owns the model, its tokenizer and chat template, the backend
// and one session (KV cache) per conversation. Talks to the GUI only through queued signals;
// never touches a widget.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <optional>

#include "app/core/benchmark_result.h"
#include "app/core/metatypes.h"

namespace hearth {

class Backend;
struct GenerationRequest;
struct GenerationSink;
struct TokenChunk;
class ChatTemplate;
class JsonGrammar;
class Model;
class Session;
class Tokenizer;

struct EngineSettings {
    int threads = 0;
    int chunk_tokens = 8;
    bool speculative = false;
    // "auto" (a GPU that passes the self-test, else the CPU), "cpu", or "vulkan:N" (Vulkan
    // device N, whatever its type).
    QString backend = QStringLiteral("auto");
};

class InferenceWorker final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InferenceWorker)

public:
    InferenceWorker(std::atomic<bool>& stop_flag, std::atomic<bool>& cancel_load_flag);
    ~InferenceWorker() override;

public slots:
    void loadModel(const QString& path);
    void generate(const hearth::ChatRequest& request);
    void configure(int threads, int chunk_tokens, bool speculative, const QString& backend);
    // Prompt processing and generation speed on the loaded model (cancelled by the stop flag).
    void runBenchmark(int prompt_tokens, int generated_tokens);
    // Testing switch: the GPU backend's device fails as a lost device does after `submissions`
    // more submissions (nothing happens on the CPU backend).
    void injectDeviceLoss(int submissions);

signals:
    void loadProgress(int percent);
    void modelLoaded(const hearth::ModelInfo& info, int context_length);
    void prefillProgress(int conversation, int done, int total);
    void tokensReady(int conversation, const hearth::TokenChunk& chunk);
    void generationFinished(int conversation, const hearth::GenerationResult& result);
    void errorOccurred(const QString& message);
    // The backend now running the model (after a load, a settings change or a fallback), and
    // why it is not the one asked for, if it is not.
    void backendChanged(const QString& name, const QString& notice);
    void benchmarkProgress(int percent);
    void benchmarkFinished(const hearth::core::BenchmarkResult& result);
    void benchmarkFailed(const QString& message);

private:
    struct ConversationSession;
    Session& session_for(int conversation, int context_length);
    // Gives the loaded model the backend the settings ask for; never leaves it without one.
    void rebuild_backend();
    // The backend the settings ask for, or the CPU backend with a notice saying why not.
    std::unique_ptr<Backend> create_backend(const Model& model, QString& notice);
    std::optional<QString> self_test_failure(std::optional<uint32_t> device, bool allow_cpu);
    void fall_back_to_cpu(const QString& reason);
    GenerationResult continue_on_cpu(const GenerationRequest& failed, TokenChunk streamed,
                                     int conversation, int context, const GenerationSink& sink,
                                     const QString& reason);

    std::atomic<bool>& m_stop;
    std::atomic<bool>& m_cancel_load;
    EngineSettings m_settings;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::unique_ptr<ChatTemplate> m_chat_template;
    std::unique_ptr<Backend> m_backend;
    bool m_on_device = false;                                // m_backend is the Vulkan backend
    std::map<QString, std::optional<QString>> m_self_tests;  // per device: why it failed
    std::shared_ptr<const JsonGrammar> m_json;
    QString m_model_path, m_model_sha256;
    std::list<ConversationSession> m_sessions;  // most recently used first; declared last
};

}  // namespace hearth
