#include "engine/runtime/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <random>
#include <stdexcept>

#include "engine/compute/backend_factory.h"
#include "engine/compute/vulkan/device.h"
#include "engine/compute/vulkan/vulkan_backend.h"
#include "engine/generation/model_drafter.h"
#include "engine/generation/session.h"
#include "engine/grammar/json_schema.h"
#include "engine/model/load_error.h"
#include "engine/runtime/memory_check.h"
#include "engine/text/chat_prompt.h"

namespace hearth {
namespace {

// Reports percent steps (not every byte) and asks the cancel flag.
std::function<bool(size_t, size_t)> progress_reporter(const LoadControl& control, int& reported) {
    return [&control, &reported](size_t done, size_t total) {
        const auto percent = static_cast<int>(done * 100 / std::max<size_t>(total, 1));
        if (percent != reported && control.progress) control.progress(reported = percent);
        return control.cancel == nullptr || !control.cancel->load();
    };
}

}  // namespace

Engine::Engine(EngineOptions options)
    : m_options(std::move(options)),
      m_selector(m_options.backends),
      m_sessions(m_options.session_budget_bytes) {}

Engine::~Engine() = default;

void Engine::require_model() const {
    if (!m_model) throw std::logic_error("no model is loaded");
}

const Model& Engine::model() const {
    require_model();
    return *m_model;
}

const ModelInfo& Engine::model_info() const {
    require_model();
    return m_info;
}

const Tokenizer& Engine::tokenizer() const {
    require_model();
    return *m_tokenizer;
}

const ChatTemplate& Engine::chat_template() const {
    require_model();
    return *m_chat_template;
}

Backend& Engine::backend() {
    require_model();
    return *m_backend;
}

int Engine::context_length(int requested) const {
    require_model();
    return requested > 0 ? requested : default_context_length(m_model->config());
}

BackendSelection Engine::select_backend(const Model& model, const LoadControl& control) {
    int reported = -1;  // the load bar runs a second time while weights go to a GPU
    return m_selector.select(m_options.backend, model, progress_reporter(control, reported));
}

void Engine::install(BackendSelection selection) {
    m_backend = std::move(selection.backend);
    m_report = {m_backend->name(), selection.on_device, std::move(selection.notice)};
    if (m_options.on_backend_changed) m_options.on_backend_changed(m_report);
}

ModelInfo Engine::load(const std::filesystem::path& file, const LoadControl& control,
                       int context_length) {
    ModelInfo info = read_model_info(file, {.kv_cache = m_options.backend.kv_cache});
    if (m_options.check_free_memory) {
        check_free_memory(info, context_length > 0
                                    ? context_length
                                    : std::min(info.context_length, kDefaultContextCap));
    }
    int reported = -1;
    auto model = Model::load(
        file, m_selector.load_options(m_options.backend,
                                      {.progress = progress_reporter(control, reported)}));
    auto tokenizer = make_tokenizer(model->file());
    auto chat = std::make_unique<ChatTemplate>(
        ChatTemplate::from_model(model->file(), tokenizer->vocabulary()));
    // The previous model's backend goes first: a GPU may not hold both.
    m_sessions.clear();
    m_backend.reset();
    BackendSelection selection;
    try {
        selection = select_backend(*model, control);
    } catch (...) {
        if (m_model) install({BackendSelector::cpu(m_options.backend, *m_model)});
        throw;
    }
    m_json_object.reset();
    m_draft.reset();  // drafts for the previous model's vocabulary
    m_chat_template = std::move(chat);
    m_tokenizer = std::move(tokenizer);
    m_model = std::move(model);
    m_info = info;
    install(std::move(selection));
    return info;
}

void Engine::set_backend(const BackendPreference& preference, const LoadControl& control) {
    BackendPreference threads_only = m_options.backend;
    threads_only.threads = preference.threads;
    threads_only.spare_threads = preference.spare_threads;
    // A GPU backend does not use the CPU threads: a new thread count alone leaves it running.
    const bool changed =
        threads_only != preference ||
        (!m_report.on_device && preference.cpu_threads() != m_options.backend.cpu_threads());
    m_options.backend = preference;
    if (!m_model || !changed) return;
    set_kv_cache(m_info, m_model->config(), preference.kv_cache);
    // The sessions' caches belong to the old backend; each conversation prefills anew on its
    // next message, from its history.
    m_sessions.clear();
    m_backend.reset();
    try {
        install(select_backend(*m_model, control));
    } catch (const LoadCancelled&) {
        install({BackendSelector::cpu(preference, *m_model), false,
                 Notice{.kind = NoticeKind::GpuNotUsed, .problem = GpuProblem::UploadCancelled}});
    } catch (const std::exception& error) {  // the CPU backend itself failed: keep a backend
        spdlog::error("backend change failed: {}", error.what());
        install({BackendSelector::cpu(preference, *m_model)});
        throw;
    }
}

void Engine::fall_back_to_cpu(const Notice& notice) {
    m_sessions.clear();
    m_backend.reset();
    install({BackendSelector::cpu(m_options.backend, *m_model), false, notice});
}

GenerationRequest Engine::chat_generation_request(const ChatRequest& chat,
                                                  const DecodeSettings& settings,
                                                  int context_length) {
    require_model();
    const ChatRenderOptions render{.continue_final_message = chat.continue_final_message,
                                   .enable_thinking = chat.enable_thinking,
                                   .reasoning_effort = chat.reasoning_effort,
                                   .tools = chat.tools,
                                   .extra_variables = chat.template_variables};
    const auto prompt = build_chat_prompt(*m_chat_template, *m_tokenizer, chat.messages, render);
    GenerationRequest request;
    request.prompt = prompt.tokens;
    request.reasoning = m_chat_template->reasoning_format(prompt.text);
    if (!m_chat_template->fallback_reason().empty()) {
        request.notices.push_back(
            {.kind = NoticeKind::TemplateFallback, .detail = m_chat_template->fallback_reason()});
    }
    if (prompt.tokens.size() + static_cast<size_t>(std::max(chat.max_tokens, 0)) >
        static_cast<size_t>(context_length)) {
        // Near the limit: the overflow policy needs to know where messages begin, and keeps a
        // system prompt (else just the first token, BOS) whatever it drops.
        request.turn_starts = chat_turn_starts(*m_chat_template, *m_tokenizer, chat.messages,
                                               prompt.tokens.size(), render);
        const bool system = !chat.messages.empty() && chat.messages.front().role == "system";
        request.keep_tokens = system && request.turn_starts.size() > 1 ? request.turn_starts[1] : 1;
    }
    apply_options(chat, settings, request);
    return request;
}

GenerationRequest Engine::text_generation_request(std::string_view text, const ChatRequest& options,
                                                  const DecodeSettings& settings) {
    require_model();
    GenerationRequest request;
    request.prompt = m_tokenizer->encode(text, {.add_special = true, .parse_special = false});
    apply_options(options, settings, request);
    return request;
}

void Engine::apply_options(const ChatRequest& chat, const DecodeSettings& settings,
                           GenerationRequest& request) {
    request.overflow = chat.overflow;
    request.max_tokens = chat.max_tokens;
    request.sampler = chat.sampler;
    if (chat.fresh_seed) request.sampler.seed = std::random_device{}();
    if (chat.json_schema) {
        request.grammar = std::make_shared<const JsonGrammar>(JsonSchema::parse(*chat.json_schema));
    } else if (chat.json_mode) {
        if (!m_json_object)
            m_json_object = std::make_shared<const JsonGrammar>(JsonSchema::any_object());
        request.grammar = m_json_object;
    }
    request.stop_strings = chat.stop_strings;
    request.speculative = settings.speculative;
    request.handoff.chunk_tokens = settings.chunk_tokens;
}

GenerationResult Engine::chat(const ChatRequest& chat, const DecodeSettings& settings,
                              const GenerationSink& sink, const std::atomic<bool>* cancel) {
    const int context = context_length(chat.context_length);
    GenerationRequest request = chat_generation_request(chat, settings, context);
    request.cancel = cancel;
    return generate(chat.conversation, context, request, sink);
}

void Engine::load_draft(const std::filesystem::path& file) {
    require_model();
    m_draft = DraftModel::load(file, m_tokenizer->vocabulary(), m_options.backend.threads);
}

GenerationResult Engine::generate(int64_t conversation, int context_length,
                                  const GenerationRequest& asked, const GenerationSink& sink) {
    require_model();
    // A draft model drafts for this answer with a cache of its own, as long as the context.
    GenerationRequest drafted;
    if (asked.speculative && m_draft && !asked.drafter) {
        drafted = asked;
        drafted.drafter = std::make_shared<ModelDrafter>(*m_draft->backend, context_length,
                                                         m_tokenizer->vocabulary().size());
    }
    const GenerationRequest& request = drafted.drafter ? drafted : asked;
    TokenChunk streamed;  // what the consumer has seen, should the GPU fail midway
    GenerationSink tracking = sink;
    tracking.on_chunk = [&](const TokenChunk& chunk) {
        streamed.append(chunk);
        return !sink.on_chunk || sink.on_chunk(chunk);
    };
    try {
        return m_sessions.acquire(conversation, context_length, *m_backend, *m_tokenizer)
            .generate(request, tracking);
    } catch (const vulkan::VulkanError& error) {
        if (!m_report.on_device) throw;
        Notice lost{.kind = NoticeKind::GpuLost,
                    .problem = GpuProblem::DeviceLost,
                    .device = m_report.name,
                    .detail = error.what()};
        if (request.grammar) {  // a JSON document cannot resume midway: the answer ends here
            fall_back_to_cpu(lost);
            throw;
        }
        lost.resumed = true;
        return resume_on_cpu(conversation, context_length, request, streamed, sink, lost);
    }
}

// The answer goes on where the GPU left it: the CPU prefills the conversation and the tokens
// already streamed, then generates the rest. The user loses nothing but that prefill's time.
GenerationResult Engine::resume_on_cpu(int64_t conversation, int context_length,
                                       const GenerationRequest& failed, const TokenChunk& streamed,
                                       const GenerationSink& sink, Notice lost) {
    fall_back_to_cpu(lost);
    GenerationRequest request = failed;
    request.prompt.insert(request.prompt.end(), streamed.tokens.begin(), streamed.tokens.end());
    request.max_tokens = std::max(0, failed.max_tokens - static_cast<int>(streamed.tokens.size()));
    // The resumed part starts where the streamed one stood: inside the reasoning or the answer.
    if (!streamed.text.empty()) {
        request.reasoning.start = ReasoningStart::Answer;
    } else if (!streamed.reasoning.empty()) {
        request.reasoning.start = ReasoningStart::Reasoning;
    }
    auto result = m_sessions.acquire(conversation, context_length, *m_backend, *m_tokenizer)
                      .generate(request, sink);
    result.tokens.insert(result.tokens.begin(), streamed.tokens.begin(), streamed.tokens.end());
    result.text = streamed.text + result.text;
    result.reasoning = streamed.reasoning + result.reasoning;
    result.stats.generated_tokens += static_cast<int>(streamed.tokens.size());
    result.stats.reasoning_tokens += streamed.reasoning_tokens;
    result.notices.insert(result.notices.begin(), std::move(lost));
    return result;
}

SpeedMeasurement Engine::measure_speed(int prompt_tokens, int generated_tokens,
                                       const SpeedControl& control) {
    require_model();
    return hearth::measure_speed(*m_backend, m_model->config().vocab_size, prompt_tokens,
                                 generated_tokens, control);
}

void Engine::inject_device_loss(int submissions, bool while_running) {
    using Loss = vulkan::Device::Loss;
    if (auto* device = dynamic_cast<VulkanBackend*>(m_backend.get())) {
        device->device().inject_device_loss_after(
            submissions, while_running ? Loss::WhileRunning : Loss::AtSubmit);
    }
}

}  // namespace hearth
