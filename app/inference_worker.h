// Lives on the engine thread and owns the model, its tokenizer and chat template, the backend
// and one session (KV cache) per conversation. Talks to the GUI only through queued signals;
// never touches a widget.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <list>
#include <memory>

#include "ui/benchmark_result.h"
#include "ui/chat_request.h"
#include "ui/metatypes.h"

namespace hearth {

class Backend;
class ChatTemplate;
class JsonGrammar;
class Model;
class Session;
class Tokenizer;

struct EngineSettings {
    int threads = 0;
    int chunk_tokens = 8;
    bool speculative = false;
};

class InferenceWorker final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InferenceWorker)

public:
    InferenceWorker(std::atomic<bool>& stop_flag, std::atomic<bool>& cancel_load_flag);
    ~InferenceWorker() override;

public slots:
    void loadModel(const QString& path);
    void generate(const hearth::ui::ChatRequest& request);
    void configure(int threads, int chunk_tokens, bool speculative);
    // Prompt processing and generation speed on the loaded model (cancelled by the stop flag).
    void runBenchmark(int prompt_tokens, int generated_tokens);

signals:
    void loadProgress(int percent);
    void modelLoaded(const hearth::ModelInfo& info, int context_length);
    void prefillProgress(int conversation, int done, int total);
    void tokensReady(int conversation, const hearth::TokenChunk& chunk);
    void generationFinished(int conversation, const hearth::GenerationResult& result);
    void errorOccurred(const QString& message);
    void benchmarkProgress(int percent);
    void benchmarkFinished(const hearth::ui::BenchmarkResult& result);
    void benchmarkFailed(const QString& message);

private:
    struct ConversationSession;
    Session& session_for(int conversation, int context_length);

    std::atomic<bool>& m_stop;
    std::atomic<bool>& m_cancel_load;
    EngineSettings m_settings;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::unique_ptr<ChatTemplate> m_chat_template;
    std::unique_ptr<Backend> m_backend;
    std::shared_ptr<const JsonGrammar> m_json;
    QString m_model_path, m_model_sha256;
    std::list<ConversationSession> m_sessions;  // most recently used first; declared last
};

}  // namespace hearth
