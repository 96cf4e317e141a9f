#include "app/inference_worker.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>

#include <thread>

#include "app/bundled_model.h"
#include "app/phrasing/notice_text.h"
#include "engine/compute/backend_factory.h"
#include "engine/model/load_error.h"
#include "engine/remote/remote_error.h"

namespace hearth {
namespace {

// Identifies the exact weights an answer came from, for the history (the pages are resident
// after the load, so this reads from memory).
QString file_sha256(const QString& path) {
    QFile file(path);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!file.open(QIODevice::ReadOnly) || !hash.addData(&file)) return {};
    return QString::fromLatin1(hash.result().toHex());
}

QString machine_description() {
    QFile cpuinfo(QStringLiteral("/proc/cpuinfo"));
    QString model = QStringLiteral("unknown CPU");
    if (cpuinfo.open(QIODevice::ReadOnly)) {
        for (const auto& line : QString::fromUtf8(cpuinfo.readAll()).split('\n')) {
            if (line.startsWith(QLatin1String("model name"))) {
                model = line.section(':', 1).trimmed();
                break;
            }
        }
    }
    return QStringLiteral("%1, %2 threads").arg(model).arg(std::thread::hardware_concurrency());
}

QString text(const std::string& words) {
    return QString::fromStdString(words);
}

}  // namespace

InferenceWorker::InferenceWorker(std::atomic<bool>& stop_flag, std::atomic<bool>& cancel_load_flag)
    : m_stop(stop_flag),
      m_cancel_load(cancel_load_flag),
      m_keys(core::ApiKeyStore::for_app()),
      m_engine({.backends = {.self_test_model = find_bundled_model().value_or(""),
                             .pipeline_cache = default_pipeline_cache()},
                // Compute threads that share every core with the GUI thread wait on each other
                // whenever it runs (hearth-gui-bench on 2 cores: 262 tok/s with 2, 917 with 1).
                .backend = {.spare_threads = 1},
                .on_backend_changed = [this](const BackendReport& report) {
                    if (!m_loading) report_backend(report);
                }}) {}

InferenceWorker::~InferenceWorker() = default;

void InferenceWorker::report_backend(const BackendReport& report) {
    emit backendChanged(text(report.name),
                        report.notice ? text(notice_text(*report.notice)) : QString());
}

LoadControl InferenceWorker::load_control() {
    m_cancel_load = false;  // a cancel meant for an earlier load must not stop this one
    return {.progress = [this](int percent) { emit loadProgress(percent); },
            .cancel = &m_cancel_load};
}

void InferenceWorker::configure(int threads, int chunk_tokens, bool speculative,
                                const QString& draft_model, const QString& backend,
                                const QString& kv_cache) {
    m_decode = {.speculative = speculative, .chunk_tokens = chunk_tokens};
    m_draft_path = speculative ? draft_model : QString();
    auto preference = backend_preference_from_setting(backend.toStdString());
    preference.threads = threads;
    preference.spare_threads = 1;
    preference.kv_cache = kv_cache_type_from_setting(kv_cache.toStdString());
    const KvCacheType before = m_engine.backend_preference().kv_cache;
    try {
        m_engine.set_backend(preference, load_control());
    } catch (const std::exception& error) {
        emit errorOccurred(text(error_text(error)));
    }
    if (m_engine.loaded() && preference.kv_cache != before) {
        emit modelInfoChanged(m_engine.model_info(), m_engine.context_length());
    }
    apply_draft();
}

// The draft model the settings name, for the model now loaded; one that cannot draft for it
// (another vocabulary, an unreadable file) is said, and answers draft from the conversation.
void InferenceWorker::apply_draft() {
    if (m_draft_path.isEmpty() || !m_engine.loaded()) {
        m_engine.unload_draft();
        m_loaded_draft.clear();
        return;
    }
    if (m_engine.has_draft() && m_loaded_draft == m_draft_path) return;
    try {
        m_engine.load_draft(m_draft_path.toStdString());
        m_loaded_draft = m_draft_path;
    } catch (const std::exception& error) {
        m_loaded_draft.clear();
        emit errorOccurred(tr("The draft model %1 is not used: %2")
                               .arg(QFileInfo(m_draft_path).fileName(), text(error_text(error))));
    }
}

void InferenceWorker::injectDeviceLoss(int submissions) {
    m_engine.inject_device_loss(submissions);
}

void InferenceWorker::loadModel(const QString& path) {
    if (m_remote && m_engine.loaded() && path == m_model_path) {
        m_remote.reset();
        ModelInfo info = m_engine.model_info();
        info.sha256 = m_model_sha256.toStdString();
        emit modelLoaded(info, m_engine.context_length(), m_engine.chat_template().choices());
        report_backend(m_engine.backend_report());
        return;
    }
    const BackendReport before = m_engine.backend_report();
    m_loading = true;
    try {
        ModelInfo info = m_engine.load(path.toStdString(), load_control());
        m_loading = false;
        m_model_path = path;
        m_model_sha256 = file_sha256(path);
        info.sha256 = m_model_sha256.toStdString();
        m_remote.reset();
        emit modelLoaded(info, m_engine.context_length(), m_engine.chat_template().choices());
        report_backend(m_engine.backend_report());
        m_loaded_draft.clear();  // loading a model dropped the draft
        apply_draft();
        return;
    } catch (const LoadCancelled&) {
        report_failed_load(before,
                           m_engine.loaded()
                               ? tr("Loading was cancelled; the previous model stays loaded.")
                               : tr("Loading was cancelled."));
    } catch (const std::exception& error) {
        report_failed_load(before, text(error_text(error)));
    }
}

// The previous model stays; its backend is reported only if the failed load moved it (a GPU
// that could not hold both), and the error comes last so it stays on screen.
void InferenceWorker::report_failed_load(const BackendReport& before, const QString& message) {
    m_loading = false;
    if (m_engine.loaded() && !(m_engine.backend_report() == before))
        report_backend(m_engine.backend_report());
    emit loadFailed(message);
}

void InferenceWorker::useRemote(const core::RemoteChoice& choice) {
    try {
        // A choice that cannot be used leaves the one before it answering.
        m_remote = std::make_unique<RemoteAnswerer>(choice, m_keys, m_remote_idle_timeout);
        emit remoteChosen(choice);
    } catch (const std::exception& error) {
        emit remoteRefused(text(error.what()));
    }
}

void InferenceWorker::setRemoteIdleTimeout(int milliseconds) {
    m_remote_idle_timeout = std::chrono::milliseconds(milliseconds);
}

// The same signals as a local answer; a failure keeps what arrived (generationFailed).
void InferenceWorker::generate_remotely(const ChatRequest& request) {
    m_stop = false;
    const int conversation = static_cast<int>(request.conversation);
    // Nothing is laid out here: the server reports the prompt's size with the answer (usage).
    emit generationStarted(conversation, GenerationStats{});
    const GenerationSink sink{.on_chunk = [&](const TokenChunk& chunk) {
        emit tokensReady(conversation, chunk);
        return true;
    }};
    try {
        emit generationFinished(conversation, m_remote->answer(request, sink, &m_stop));
    } catch (const remote::RemoteError& error) {
        emit generationFailed(conversation, error.partial, text(error.what()));
    } catch (const std::exception& error) {
        emit generationFailed(conversation, {}, text(error_text(error)));
    }
}

void InferenceWorker::generate(const ChatRequest& request) {
    if (m_remote) {
        generate_remotely(request);
        return;
    }
    const int conversation = static_cast<int>(request.conversation);
    if (!m_engine.loaded()) {
        emit answerFailed(conversation, tr("No model is loaded."));
        return;
    }
    m_stop = false;
    const GenerationSink sink{
        .on_chunk =
            [&](const TokenChunk& chunk) {
                emit tokensReady(conversation, chunk);
                return true;
            },
        .on_prefill =
            [&](int done, int total) {
                emit prefillProgress(conversation, done, total);
                return true;
            },
        .on_prompt =
            [&](const GenerationStats& prompt) { emit generationStarted(conversation, prompt); }};
    try {
        emit generationFinished(conversation, m_engine.chat(request, m_decode, sink, &m_stop));
    } catch (const std::exception& error) {
        emit answerFailed(conversation, text(error_text(error)));
    }
}

void InferenceWorker::runBenchmark(int prompt_tokens, int generated_tokens) {
    if (!m_engine.loaded()) {
        emit benchmarkFailed(tr("No model is loaded."));
        return;
    }
    m_stop = false;
    try {
        const auto speed =
            m_engine.measure_speed(prompt_tokens, generated_tokens,
                                   {.cancel = &m_stop, .progress = [this](int done, int total) {
                                        emit benchmarkProgress(done * 100 / std::max(total, 1));
                                    }});
        core::BenchmarkResult result;
        result.created_ms = QDateTime::currentMSecsSinceEpoch();
        result.model_file = m_model_path;
        result.model_sha256 = m_model_sha256;
        result.backend = text(m_engine.backend_report().name);
        result.machine = machine_description();
        result.build = QStringLiteral("Hearth %1 (%2)")
                           .arg(QStringLiteral(HEARTH_VERSION), QStringLiteral(__DATE__));
        result.prompt_tokens = prompt_tokens;
        result.prompt_tokens_per_second = speed.prompt_tokens_per_second();
        result.generated_tokens = generated_tokens;
        result.generation_tokens_per_second = speed.generation_tokens_per_second();
        emit benchmarkFinished(result);
    } catch (const SpeedTestCancelled&) {
        emit benchmarkFailed(tr("The benchmark was cancelled."));
    } catch (const std::exception& error) {
        emit benchmarkFailed(text(error_text(error)));
    }
}

}  // namespace hearth
