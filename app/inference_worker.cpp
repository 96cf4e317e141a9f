#include "app/inference_worker.h"

#include <chrono>

#include "engine/backend_factory.h"
#include "engine/model.h"
#include "engine/session.h"
#include "engine/tokenizer.h"

namespace hearth {
InferenceWorker::InferenceWorker(std::atomic<bool>& stop_flag) : m_stop(stop_flag) {}

InferenceWorker::~InferenceWorker() = default;

void InferenceWorker::loadModel(const QString& path) {
    try {
        auto model = Model::load(path.toStdString());
        auto tokenizer = make_tokenizer(model->file());
        auto backend = make_backend("cpu", *model, 0);
        auto session = std::make_unique<Session>(*backend, *tokenizer,
                                                 default_context_length(model->config()));
        m_session.reset();
        m_session = std::move(session);
        m_backend = std::move(backend);
        m_tokenizer = std::move(tokenizer);
        m_model = std::move(model);
        const auto& config = m_model->config();
        emit modelLoaded(tr("%1 — %2, %3 layers, context %4 tokens")
                             .arg(QString::fromStdString(config.name),
                                  QString::fromStdString(config.architecture_name))
                             .arg(config.layer_count)
                             .arg(config.context_length));
    } catch (const std::exception& error) {
        emit errorOccurred(QString::fromStdString(error.what()));
    }
}

void InferenceWorker::generate(const QString& prompt) {
    if (!m_session) {
        emit errorOccurred(tr("no model is loaded"));
        return;
    }
    m_stop = false;
    try {
        GenerationRequest request;
        request.prompt = m_tokenizer->encode(prompt.toStdString(), {});
        request.max_tokens = 256;
        request.sampler.seed = std::chrono::steady_clock::now().time_since_epoch().count();
        request.cancel = &m_stop;
        // The decode loop hands over chunks (8 tokens or 30 ms); each becomes one queued signal.
        const GenerationSink sink{.on_chunk = [this](const TokenChunk& chunk) {
            if (!chunk.text.empty()) emit tokensReady(QString::fromStdString(chunk.text));
            return true;
        }};
        const auto stats = m_session->generate(request, sink).stats;
        emit generationFinished(
            tr("%1 tokens at %2 tok/s, first token after %3 ms (%4)")
                .arg(stats.generated_tokens)
                .arg(stats.decode_tokens_per_second(), 0, 'f', 1)
                .arg(stats.time_to_first_token_ns / 1e6, 0, 'f', 1)
                .arg(QString::fromUtf8(stop_reason_name(stats.stop_reason).data())));
    } catch (const std::exception& error) {
        emit errorOccurred(QString::fromStdString(error.what()));
    }
}

}  // namespace hearth
