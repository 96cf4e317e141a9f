#include "app/inference_worker.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>

#include <chrono>
#include <random>
#include <thread>

#include <spdlog/spdlog.h>

#include "app/bundled_model.h"
#include "engine/compute/backend_factory.h"
#include "engine/text/chat_prompt.h"
#include "engine/generation/greedy_picker.h"
#include "engine/model/load_error.h"
#include "engine/generation/prefill_planner.h"
#include "engine/generation/session.h"
#include "engine/model/system_memory.h"
#include "engine/compute/vulkan/device.h"
#include "engine/compute/vulkan/self_test.h"
#include "engine/compute/vulkan/vulkan_backend.h"

namespace hearth {
namespace {

// Each kept conversation holds a KV cache; a few stay warm, the rest are rebuilt on demand.
constexpr size_t kWarmSessions = 3;

// "Automatic" threads in the app leave one core to the window: compute threads that share
// every core with the GUI thread wait on each other whenever it runs (measured with
// hearth-gui-bench on 2 cores: 262 tok/s with 2 threads, 917 with 1).
int compute_threads(int setting) {
    if (setting > 0) return setting;
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
}

// Where each message begins in the prompt (for dropping whole turns on overflow), measured by
// rendering the conversation up to each message. Only done near the context limit.
std::vector<int> turn_starts(const ChatTemplate& chat, const Tokenizer& tokenizer,
                             const std::vector<ChatMessage>& messages, size_t prompt_length) {
    std::vector<int> starts{0};
    for (size_t i = 1; i < messages.size(); ++i) {
        const std::vector<ChatMessage> head(messages.begin(),
                                            messages.begin() + static_cast<long>(i));
        const auto prefix =
            build_chat_prompt(chat, tokenizer, head, {.add_generation_prompt = false});
        const int start = static_cast<int>(std::min(prefix.tokens.size(), prompt_length));
        if (start > starts.back()) starts.push_back(start);
    }
    return starts;
}

// Identifies the exact weights an answer came from, for the history (the pages are resident
// after the load, so this reads from memory).
std::string file_sha256(const QString& path) {
    QFile file(path);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!file.open(QIODevice::ReadOnly) || !hash.addData(&file)) return {};
    return hash.result().toHex().toStdString();
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

}  // namespace

struct InferenceWorker::ConversationSession {
    int conversation;
    int context_length;
    std::unique_ptr<Session> session;
};

InferenceWorker::InferenceWorker(std::atomic<bool>& stop_flag, std::atomic<bool>& cancel_load_flag)
    : m_stop(stop_flag), m_cancel_load(cancel_load_flag) {}

InferenceWorker::~InferenceWorker() = default;

void InferenceWorker::configure(int threads, int chunk_tokens, bool speculative,
                                const QString& backend) {
    const bool rebuild = m_model && (backend != m_settings.backend ||
                                     (threads != m_settings.threads && !m_on_device));
    m_settings = {threads, chunk_tokens, speculative, backend};
    if (rebuild) rebuild_backend();
}

void InferenceWorker::rebuild_backend() {
    // The sessions' caches belong to the old backend; each conversation prefills anew on its
    // next message, from its history.
    m_sessions.clear();
    m_backend.reset();
    m_cancel_load = false;  // a cancel meant for an earlier load must not stop this upload
    try {
        QString notice;
        m_backend = create_backend(*m_model, notice);  // any GPU failure falls back to the CPU
        emit backendChanged(QString::fromStdString(m_backend->name()), notice);
    } catch (const LoadCancelled&) {
        fall_back_to_cpu(tr("Loading onto the GPU was cancelled; using the CPU."));
    }
}

std::optional<QString> InferenceWorker::self_test_failure(std::optional<uint32_t> device,
                                                          bool allow_cpu) {
    const QString key = device ? QString::number(*device) : QStringLiteral("best");
    if (const auto found = m_self_tests.find(key); found != m_self_tests.end())
        return found->second;
    std::optional<QString> failure;
    try {
        const auto result = vulkan::self_test_device(device, allow_cpu, bundled_model_path());
        if (!result.passed) {
            failure = tr("The GPU (%1) failed Hearth's start-up check: %2. Using the CPU.")
                          .arg(QString::fromStdString(result.device),
                               QString::fromStdString(result.reason));
        }
    } catch (const std::exception& error) {  // no bundled model: nothing to check against
        spdlog::warn("GPU self-test skipped: {}", error.what());
    }
    return m_self_tests[key] = failure;
}

std::unique_ptr<Backend> InferenceWorker::create_backend(const Model& model, QString& notice) {
    const auto cpu = [&] {
        m_on_device = false;
        return make_backend({.threads = compute_threads(m_settings.threads)}, model);
    };
    if (m_settings.backend == QLatin1String("cpu")) return cpu();
    std::optional<uint32_t> device;
    const bool automatic = m_settings.backend == QLatin1String("auto");
    if (!automatic) {
        bool valid = false;
        device = m_settings.backend.section(':', 1).toUInt(&valid);
        if (!m_settings.backend.startsWith(QLatin1String("vulkan:")) || !valid) {
            notice = tr("Unknown backend setting \"%1\": using the CPU.").arg(m_settings.backend);
            return cpu();
        }
    }
    try {
        if (automatic) {
            // No GPU (or no driver) is the ordinary CPU-only machine: the CPU, and no notice.
            std::vector<vulkan::DeviceInfo> devices;
            try {
                devices = vulkan::list_devices();
            } catch (const vulkan::VulkanError&) {  // no driver installed
            }
            const bool gpu = std::any_of(devices.begin(), devices.end(), [](const auto& d) {
                return d.type != VK_PHYSICAL_DEVICE_TYPE_CPU;
            });
            if (!gpu) return cpu();
        }
        if (const auto failure = self_test_failure(device, !automatic)) {
            notice = *failure;
            return cpu();
        }
        // The load bar runs a second time while the weights go to the GPU; cancel works there.
        int reported = -1;
        auto backend = std::make_unique<VulkanBackend>(
            model, VulkanBackendOptions{.device = device,
                                        .allow_cpu_device = !automatic,
                                        .pipeline_cache = default_pipeline_cache(),
                                        .progress = [&](size_t done, size_t total) {
                                            const auto percent = static_cast<int>(
                                                done * 100 / std::max<size_t>(total, 1));
                                            if (percent != reported)
                                                emit loadProgress(reported = percent);
                                            return !m_cancel_load.load();
                                        }});
        m_on_device = true;
        return backend;
    } catch (const LoadCancelled&) {
        throw;
    } catch (const std::exception& error) {
        notice = tr("The GPU cannot run this model (%1): using the CPU.")
                     .arg(QString::fromStdString(error.what()));
        spdlog::info("Vulkan backend not used: {}", error.what());
        return cpu();
    }
}

void InferenceWorker::injectDeviceLoss(int submissions) {
    if (auto* device = dynamic_cast<VulkanBackend*>(m_backend.get()))
        device->device().inject_device_loss_after(submissions);
}

void InferenceWorker::fall_back_to_cpu(const QString& reason) {
    m_sessions.clear();
    m_backend.reset();
    m_on_device = false;
    m_backend = make_backend({.threads = compute_threads(m_settings.threads)}, *m_model);
    emit backendChanged(QString::fromStdString(m_backend->name()), reason);
}

// The answer goes on where the GPU left it: the CPU prefills the conversation and the tokens
// already shown, then generates the rest. The user loses nothing but the time of that prefill.
GenerationResult InferenceWorker::continue_on_cpu(const GenerationRequest& failed,
                                                  TokenChunk streamed, int conversation,
                                                  int context, const GenerationSink& sink,
                                                  const QString& reason) {
    fall_back_to_cpu(reason);
    // `streamed` is a copy: the sink goes on adding the continuation to the caller's.
    GenerationRequest request = failed;
    request.prompt.insert(request.prompt.end(), streamed.tokens.begin(), streamed.tokens.end());
    request.max_tokens = std::max(0, failed.max_tokens - static_cast<int>(streamed.tokens.size()));
    auto result = session_for(conversation, context).generate(request, sink);
    result.tokens.insert(result.tokens.begin(), streamed.tokens.begin(), streamed.tokens.end());
    result.text = streamed.text + result.text;
    result.stats.generated_tokens += static_cast<int>(streamed.tokens.size());
    result.notice = reason.toStdString() + (result.notice.empty() ? "" : " " + result.notice);
    return result;
}

void InferenceWorker::loadModel(const QString& path) {
    m_cancel_load = false;
    try {
        const std::filesystem::path file = path.toStdString();
        ModelInfo info = read_model_info(file);
        const int context = std::min(info.context_length, kDefaultContextCap);
        const auto needed = info.memory_bytes(context);
        const auto available = available_memory_bytes();
        if (available && needed > *available) {
            throw LoadError(file.string() + ": needs " + std::to_string(needed >> 20) +
                            " MiB at a context of " + std::to_string(context) +
                            " tokens, but only " + std::to_string(*available >> 20) +
                            " MiB of memory is free");
        }
        int reported = -1;
        auto model = Model::load(file, {.progress = [&](size_t done, size_t total) {
                                     const int percent = static_cast<int>(done * 100 / total);
                                     if (percent != reported) emit loadProgress(reported = percent);
                                     return !m_cancel_load.load();
                                 }});
        auto tokenizer = make_tokenizer(model->file());
        auto chat = std::make_unique<ChatTemplate>(
            ChatTemplate::from_model(model->file(), tokenizer->vocabulary()));
        // The previous model's backend goes first: a GPU may not hold both.
        m_sessions.clear();
        m_backend.reset();
        QString notice;
        auto backend = create_backend(*model, notice);
        info.sha256 = file_sha256(path);
        m_backend = std::move(backend);
        m_chat_template = std::move(chat);
        m_tokenizer = std::move(tokenizer);
        m_model = std::move(model);
        m_model_path = path;
        m_model_sha256 = QString::fromStdString(info.sha256);
        emit modelLoaded(info, context);
        emit backendChanged(QString::fromStdString(m_backend->name()), notice);
    } catch (const LoadCancelled&) {
        emit errorOccurred(m_model ? tr("Loading was cancelled; the previous model stays loaded.")
                                   : tr("Loading was cancelled."));
    } catch (const std::exception& error) {
        emit errorOccurred(QString::fromStdString(error.what()));
    }
    // A failure after the previous model's backend went leaves that model without one.
    if (m_model && !m_backend) rebuild_backend();
}

Session& InferenceWorker::session_for(int conversation, int context_length) {
    for (auto it = m_sessions.begin(); it != m_sessions.end(); ++it) {
        if (it->conversation != conversation) continue;
        if (it->context_length != context_length) {
            m_sessions.erase(it);
            break;
        }
        m_sessions.splice(m_sessions.begin(), m_sessions, it);
        return *m_sessions.front().session;
    }
    if (m_sessions.size() >= kWarmSessions) m_sessions.pop_back();
    m_sessions.push_front({conversation, context_length,
                           std::make_unique<Session>(*m_backend, *m_tokenizer, context_length)});
    return *m_sessions.front().session;
}

void InferenceWorker::generate(const ChatRequest& chat) {
    if (!m_model) {
        emit errorOccurred(tr("No model is loaded."));
        return;
    }
    m_stop = false;
    try {
        const auto& settings = chat;  // the request carries the conversation's settings
        const int context = settings.context_length > 0 ? settings.context_length
                                                        : default_context_length(m_model->config());
        const auto& messages = chat.messages;  // a system prompt, if any, comes first
        const auto prompt = build_chat_prompt(*m_chat_template, *m_tokenizer, messages, {});
        GenerationRequest request;
        request.prompt = prompt.tokens;
        if (prompt.tokens.size() + static_cast<size_t>(settings.max_tokens) >
            static_cast<size_t>(context)) {
            request.turn_starts =
                turn_starts(*m_chat_template, *m_tokenizer, messages, prompt.tokens.size());
            const bool system = messages.front().role == "system";
            request.keep_tokens =
                system && request.turn_starts.size() > 1 ? request.turn_starts[1] : 1;
        }
        request.overflow = settings.overflow;
        request.max_tokens = settings.max_tokens;
        request.sampler = settings.sampler;
        if (settings.fresh_seed) request.sampler.seed = std::random_device{}();
        if (settings.json_mode) {
            if (!m_json) m_json = std::make_shared<const JsonGrammar>(JsonSchema::any_object());
            request.grammar = m_json;
        }
        request.speculative = m_settings.speculative;
        request.handoff.chunk_tokens = m_settings.chunk_tokens;
        request.cancel = &m_stop;
        const int conversation = chat.conversation;
        TokenChunk streamed;  // what the user has seen, should the GPU fail midway
        const GenerationSink sink{.on_chunk =
                                      [&](const TokenChunk& chunk) {
                                          streamed.append(chunk);
                                          emit tokensReady(conversation, chunk);
                                          return true;
                                      },
                                  .on_prefill =
                                      [&](int done, int total) {
                                          emit prefillProgress(conversation, done, total);
                                          return true;
                                      }};
        GenerationResult result;
        try {
            result = session_for(conversation, context).generate(request, sink);
        } catch (const vulkan::VulkanError& error) {
            if (!m_on_device) throw;
            const QString reason =
                tr("The GPU failed (%1); Hearth continues on the CPU.").arg(error.what());
            if (request.grammar) {  // a JSON document cannot resume midway: the answer ends here
                fall_back_to_cpu(reason);
                throw;
            }
            result = continue_on_cpu(request, streamed, conversation, context, sink, reason);
        }
        emit generationFinished(conversation, result);
    } catch (const std::exception& error) {
        emit errorOccurred(QString::fromStdString(error.what()));
    }
}

void InferenceWorker::runBenchmark(int prompt_tokens, int generated_tokens) {
    if (!m_model) {
        emit benchmarkFailed(tr("No model is loaded."));
        return;
    }
    m_stop = false;
    try {
        using Clock = std::chrono::steady_clock;
        const int vocab = m_model->config().vocab_size;
        std::vector<int32_t> prompt{1};
        for (int i = 1; i < prompt_tokens; ++i) prompt.push_back(3 + (i * 7919) % (vocab - 3));
        auto sequence = m_backend->create_sequence(prompt_tokens + generated_tokens + 1);
        const int total = prompt_tokens + generated_tokens;
        const auto steps = plan_prefill(prompt_tokens, 0, m_backend->chunk_sizes());
        std::vector<float> logits;
        const auto start = Clock::now();
        for (size_t s = 0; s < steps.size(); ++s) {
            if (m_stop) throw std::runtime_error("cancelled");
            logits = m_backend->forward(
                std::span(prompt).subspan(static_cast<size_t>(steps[s].start),
                                          static_cast<size_t>(steps[s].tokens)),
                *sequence, s + 1 == steps.size() ? LogitRows::Last : LogitRows::None);
            emit benchmarkProgress((steps[s].start + steps[s].tokens) * 100 / total);
        }
        const double prefill_seconds = std::chrono::duration<double>(Clock::now() - start).count();
        const auto decode_start = Clock::now();
        // Greedy through Backend::decode, so a GPU is measured with chain decode.
        GreedyPicker picker([&](int count) {
            if (count % 8 == 0) emit benchmarkProgress((prompt_tokens + count) * 100 / total);
            return !m_stop.load();
        });
        const int decoded = m_backend->decode(*sequence, argmax(logits), generated_tokens, picker);
        if (m_stop || decoded < generated_tokens) throw std::runtime_error("cancelled");
        const double decode_seconds =
            std::chrono::duration<double>(Clock::now() - decode_start).count();
        core::BenchmarkResult result;
        result.created_ms = QDateTime::currentMSecsSinceEpoch();
        result.model_file = m_model_path;
        result.model_sha256 = m_model_sha256;
        result.backend = QString::fromStdString(m_backend->name());
        result.machine = machine_description();
        result.build = QStringLiteral("Hearth %1 (%2)")
                           .arg(QStringLiteral(HEARTH_VERSION), QStringLiteral(__DATE__));
        result.prompt_tokens = prompt_tokens;
        result.prompt_tokens_per_second = prompt_tokens / prefill_seconds;
        result.generated_tokens = generated_tokens;
        result.generation_tokens_per_second = generated_tokens / decode_seconds;
        emit benchmarkFinished(result);
    } catch (const std::exception& error) {
        emit benchmarkFailed(m_stop ? tr("The benchmark was cancelled.")
                                    : QString::fromStdString(error.what()));
    }
}

}  // namespace hearth
