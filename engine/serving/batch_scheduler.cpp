#include "engine/serving/batch_scheduler.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/compute/kv_cache.h"
#include "engine/generation/session.h"
#include "engine/model/system_memory.h"
#include "engine/runtime/memory_check.h"
#include "engine/serving/request_job.h"
#include "engine/serving/row_backend.h"
#include "engine/serving/step_batcher.h"

namespace hearth {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kRateWindow = std::chrono::seconds(5);

void check(const SchedulerOptions& options) {
    if (options.rows < 1 || options.rows > SchedulerOptions::kMaxRows) {
        throw std::invalid_argument("the server takes 1 to " +
                                    std::to_string(SchedulerOptions::kMaxRows) + " rows, not " +
                                    std::to_string(options.rows));
    }
    if (options.step_tokens < 1) throw std::invalid_argument("a step must take at least a token");
    if (options.queue_limit < 0) throw std::invalid_argument("a negative queue limit");
    if (options.chunk_tokens < 1) throw std::invalid_argument("a chunk must hold a token");
    if (options.queue_wait.count() < 0) throw std::invalid_argument("a negative queue wait");
}

size_t common_prefix(std::span<const int32_t> a, std::span<const int32_t> b) {
    const size_t length = std::min(a.size(), b.size());
    return static_cast<size_t>(
        std::mismatch(a.begin(), a.begin() + static_cast<long>(length), b.begin()).first -
        a.begin());
}

}  // namespace

struct BatchScheduler::State {
    struct Row {
        std::unique_ptr<RowBackend> backend;
        std::unique_ptr<Session> session;
        std::shared_ptr<RequestJob> assigned;  // handed over, not yet taken by the row's thread
        std::shared_ptr<RequestJob> running;
        uint64_t last_used = 0;
        std::condition_variable wake;
        std::thread thread;

        bool free() const { return !assigned && !running; }
    };

    State(Engine& engine, SchedulerOptions options)
        : engine(engine),
          options(options),
          context(engine.context_length(options.context_length)),
          batcher(engine.backend(), options.step_tokens),
          queue(std::make_shared<JobQueue>(options.queue_limit)) {}

    void create_rows();
    void serve(Row& row);
    // Runs the row's request and returns its last event (the result or the error).
    RequestStream::Event run(Row& row, RequestJob& job);
    void dispatch();
    Row* best_row(std::span<const int32_t> prompt);
    std::shared_ptr<RequestStream> enqueue(GenerationRequest request);
    void note_tokens(int count);
    void stop();

    Engine& engine;
    const SchedulerOptions options;
    const int context;
    StepBatcher batcher;
    std::shared_ptr<JobQueue> queue;
    std::mutex render_mutex;   // the engine builds one prompt at a time
    mutable std::mutex mutex;  // the rows' jobs, stopping, the counters
    std::vector<std::unique_ptr<Row>> rows;
    bool stopping = false;
    uint64_t use_clock = 0;
    SchedulerCounters totals;
    std::deque<std::pair<Clock::time_point, int>> recent_tokens;
};

// Every row's cache is allocated now: memory is checked once, before the first request.
void BatchScheduler::State::create_rows() {
    for (int i = 0; i < options.rows; ++i) {
        auto row = std::make_unique<Row>();
        row->backend = std::make_unique<RowBackend>(engine.backend(), batcher, options.step_tokens);
        row->session = std::make_unique<Session>(*row->backend, engine.tokenizer(), context);
        if (i == 0) {
            const uint64_t needed = row->session->memory_bytes() * (options.rows - 1);
            const auto available = available_memory_bytes();
            if (available && needed > *available) {
                throw InsufficientMemoryError({.file = engine.model_info().path,
                                               .needed = needed,
                                               .available = *available,
                                               .context = context});
            }
        }
        totals.kv_bytes += row->session->memory_bytes();
        rows.push_back(std::move(row));
    }
    for (auto& row : rows) row->thread = std::thread([this, &row = *row] { serve(row); });
}

void BatchScheduler::State::serve(Row& row) {
    while (true) {
        {
            std::unique_lock lock(mutex);
            row.wake.wait(lock, [&] { return row.assigned || stopping; });
            if (!row.assigned) return;
            row.running = std::move(row.assigned);
        }
        auto job = row.running;
        auto end = run(row, *job);
        // The row is free before its client hears the end: a follow-up sent at once finds the
        // row, and its cache, available.
        {
            std::lock_guard lock(mutex);
            row.running.reset();
            row.last_used = ++use_clock;
            ++totals.requests_finished;
        }
        job->push(std::move(end));
        dispatch();
    }
}

RequestStream::Event BatchScheduler::State::run(Row& row, RequestJob& job) {
    job.start();
    batcher.activate();
    const GenerationSink sink{.on_chunk = [&](const TokenChunk& chunk) {
        note_tokens(static_cast<int>(chunk.tokens.size()));
        job.push(chunk);
        return !job.cancelled();
    }};
    RequestStream::Event end;
    try {
        auto result = row.session->generate(job.request(), sink);
        {
            std::lock_guard lock(mutex);
            totals.prompt_tokens_total += static_cast<uint64_t>(result.stats.prompt_tokens);
            totals.cached_tokens_total += static_cast<uint64_t>(result.stats.cached_tokens);
        }
        end = std::move(result);
    } catch (...) {
        end = std::current_exception();
    }
    batcher.deactivate();
    return end;
}

void BatchScheduler::State::note_tokens(int count) {
    const auto now = Clock::now();
    std::lock_guard lock(mutex);
    totals.generated_tokens_total += static_cast<uint64_t>(count);
    recent_tokens.emplace_back(now, count);
    while (!recent_tokens.empty() && now - recent_tokens.front().first > kRateWindow)
        recent_tokens.pop_front();
}

// The free row whose cache holds the longest prefix of the prompt, where that prefix is worth
// using (at least half of what the row holds: its conversation coming back; or a long shared
// system prompt), so only what is new is prefilled. Otherwise the row idle longest: a BOS in
// common is no reason to overwrite a warm conversation.
BatchScheduler::State::Row* BatchScheduler::State::best_row(std::span<const int32_t> prompt) {
    Row* matching = nullptr;
    Row* oldest = nullptr;
    size_t longest = 0;
    for (auto& row : rows) {
        if (!row->free()) continue;
        const auto& cached = row->session->history().cached();
        const size_t shared = common_prefix(cached, prompt);
        const bool worth_it = shared > 1 && (2 * shared >= cached.size() || shared >= 32);
        if (worth_it && shared > longest) {
            matching = row.get();
            longest = shared;
        }
        if (oldest == nullptr || row->last_used < oldest->last_used) oldest = row.get();
    }
    return matching != nullptr ? matching : oldest;
}

void BatchScheduler::State::dispatch() {
    std::lock_guard lock(mutex);
    while (!stopping) {
        const bool any_free =
            std::any_of(rows.begin(), rows.end(), [](const auto& row) { return row->free(); });
        if (!any_free) return;
        auto job = queue->pop();
        if (!job) return;
        Row* row = best_row(job->request().prompt);
        row->assigned = std::move(job);
        row->wake.notify_one();
    }
}

// A request goes straight to a free row when nothing waits before it; only then does the
// queue (and its limit) come in, so a queue limit of 0 means "no waiting", not "nothing runs".
std::shared_ptr<RequestStream> BatchScheduler::State::enqueue(GenerationRequest request) {
    const int prompt = static_cast<int>(request.prompt.size());
    if (prompt > context) throw ContextFullError({.needed = prompt, .capacity = context});
    auto job =
        std::make_shared<RequestJob>(std::move(request), Clock::now() + options.queue_wait, queue);
    {
        std::lock_guard lock(mutex);
        Row* row = !stopping && queue->empty() ? best_row(job->request().prompt) : nullptr;
        if (row != nullptr) {
            ++totals.requests_total;
            row->assigned = job;
            row->wake.notify_one();
            return job;
        }
    }
    queue->push(job);
    {
        std::lock_guard lock(mutex);
        ++totals.requests_total;
    }
    dispatch();
    return job;
}

void BatchScheduler::State::stop() {
    {
        std::lock_guard lock(mutex);
        if (stopping) return;
        stopping = true;
        for (auto& row : rows) {
            if (row->assigned) row->assigned->cancel();
            if (row->running) row->running->cancel();
            row->wake.notify_one();
        }
    }
    for (auto& job : queue->close()) {
        job->push(std::make_exception_ptr(SchedulerBusyError(
            SchedulerBusyError::Reason::Stopping, "the server stopped before this request ran")));
    }
}

BatchScheduler::BatchScheduler(Engine& engine, SchedulerOptions options) {
    check(options);
    m_state = std::make_unique<State>(engine, options);
    try {
        m_state->create_rows();
    } catch (...) {
        m_state->stop();
        for (auto& row : m_state->rows) {
            if (row->thread.joinable()) row->thread.join();
        }
        throw;
    }
}

BatchScheduler::~BatchScheduler() {
    m_state->stop();
    for (auto& row : m_state->rows) row->thread.join();
}

std::shared_ptr<RequestStream> BatchScheduler::submit(const ChatRequest& chat) {
    const DecodeSettings settings{.speculative = false,
                                  .chunk_tokens = m_state->options.chunk_tokens};
    GenerationRequest request;
    {
        std::lock_guard lock(m_state->render_mutex);
        request = m_state->engine.chat_generation_request(chat, settings, m_state->context);
    }
    return m_state->enqueue(std::move(request));
}

std::shared_ptr<RequestStream> BatchScheduler::submit(const CompletionRequest& completion) {
    const DecodeSettings settings{.speculative = false,
                                  .chunk_tokens = m_state->options.chunk_tokens};
    GenerationRequest request;
    {
        std::lock_guard lock(m_state->render_mutex);
        request = m_state->engine.text_generation_request(completion.prompt, completion.options,
                                                          settings);
    }
    if (request.prompt.empty()) throw std::invalid_argument("the prompt is empty");
    return m_state->enqueue(std::move(request));
}

void BatchScheduler::stop() {
    m_state->stop();
}

SchedulerCounters BatchScheduler::counters() const {
    std::lock_guard lock(m_state->mutex);
    SchedulerCounters counters = m_state->totals;
    counters.rows = static_cast<int>(m_state->rows.size());
    counters.rows_busy = static_cast<int>(std::count_if(
        m_state->rows.begin(), m_state->rows.end(), [](const auto& row) { return !row->free(); }));
    counters.queue_depth = m_state->queue->size();
    counters.requests_refused = m_state->queue->refused();
    counters.steps_total = m_state->batcher.steps();
    int recent = 0;
    const auto now = Clock::now();
    for (const auto& [when, count] : m_state->recent_tokens) {
        if (now - when <= kRateWindow) recent += count;
    }
    counters.tokens_per_second = recent / std::chrono::duration<double>(kRateWindow).count();
    return counters;
}

const SchedulerOptions& BatchScheduler::options() const {
    return m_state->options;
}

int BatchScheduler::context_length() const {
    return m_state->context;
}

const ModelInfo& BatchScheduler::model_info() const {
    return m_state->engine.model_info();
}

}  // namespace hearth
