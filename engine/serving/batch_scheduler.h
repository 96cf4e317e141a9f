// Many users decoded as one batch: a fixed set of user rows, each with its own session (KV
// cache, position, sampler, stop rules, grammar), advanced together by steps of one batched
// forward pass (Backend::forward_batch), so the weights are read once per step for every row.
// Requests queue for a free row (a bounded queue with a bounded wait), join between steps, and
// leave at once when they finish, are cancelled or their client goes away. A finished row keeps
// its cache: a later request continuing the same conversation lands on the row holding the
// longest matching prefix and prefills only the rest. The HTTP server and the app's in-process
// server are front ends of this; the engine it is built on is used by nothing else meanwhile.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "engine/generation/generation_request.h"
#include "engine/runtime/chat_request.h"
#include "engine/runtime/engine.h"

namespace hearth {

struct SchedulerOptions {
    int rows = 8;            // user rows decoded together, 1 to kMaxRows
    int context_length = 0;  // per row; 0: the engine's default for the model
    // Prompt tokens one step may run for rows still prefilling, beside one token of every
    // decoding row; rows' prefill chunks are capped at this size, whatever else runs, so a
    // request's numbers never depend on its neighbours.
    int step_tokens = 256;
    int queue_limit = 64;  // requests waiting for a row; more are refused at once
    std::chrono::milliseconds queue_wait{30000};  // a queued request waits this long at most
    int chunk_tokens = 1;                         // tokens per streamed chunk
    static constexpr int kMaxRows = 32;
};

// Why a request was not taken; front ends map it to 429 / 503.
class SchedulerBusyError : public std::runtime_error {
public:
    enum class Reason { QueueFull, WaitedTooLong, Stopping };
    SchedulerBusyError(Reason reason, const std::string& message)
        : std::runtime_error(message), m_reason(reason) {}
    Reason reason() const { return m_reason; }

private:
    Reason m_reason;
};

// A raw text prompt (/v1/completions): the text is tokenized as the model's tokenizer does for
// a document (a BOS where the model wants one), and `options` supplies everything but messages.
struct CompletionRequest {
    std::string prompt;
    ChatRequest options;
};

// Live figures for /metrics and the dashboard.
struct SchedulerCounters {
    int rows = 0;
    int rows_busy = 0;
    int queue_depth = 0;
    uint64_t requests_total = 0;     // accepted into the queue
    uint64_t requests_refused = 0;   // queue full, waited too long, stopping
    uint64_t requests_finished = 0;  // completed, cancelled or failed
    uint64_t prompt_tokens_total = 0;
    uint64_t cached_tokens_total = 0;  // prompt tokens reused from a row's cache
    uint64_t generated_tokens_total = 0;
    uint64_t steps_total = 0;
    double tokens_per_second = 0.0;  // generated tokens over the last few seconds
    size_t kv_bytes = 0;             // every row's KV cache, reserved
};

// One request's stream: its chunks in order, then its result (or its error). Safe to read from
// one thread while the scheduler writes from another.
class RequestStream {
public:
    using Event = std::variant<TokenChunk, GenerationResult, std::exception_ptr>;
    virtual ~RequestStream() = default;
    // The next event, waiting up to `timeout`; nullopt when nothing came in that time. After a
    // GenerationResult or an exception_ptr nothing more comes. A request still queued when its
    // wait runs out ends with SchedulerBusyError(WaitedTooLong).
    virtual std::optional<Event> next(std::chrono::milliseconds timeout) = 0;
    // The client went away or asked to stop: a queued request leaves the queue, a running one
    // frees its row within one step (its result then says Cancelled).
    virtual void cancel() = 0;
    // Whether the request has a row yet (false while it waits in the queue).
    virtual bool started() const = 0;
};

class BatchScheduler final {
public:
    // `engine` must have a model loaded; the scheduler runs its backend and tokenizer from its
    // own threads until it is destroyed, so nothing else may use the engine meanwhile.
    // Throws std::invalid_argument for options out of range and InsufficientMemoryError when
    // the rows' KV caches do not fit the memory there is.
    BatchScheduler(Engine& engine, SchedulerOptions options = {});
    ~BatchScheduler();  // stop(), then waits for the rows to finish
    BatchScheduler(const BatchScheduler&) = delete;
    BatchScheduler& operator=(const BatchScheduler&) = delete;

    // Renders the conversation through the model's chat template and queues it. Throws, before
    // anything is queued: ContextFullError when the prompt plus nothing fits no row (it names
    // both sizes), the template's RenderError, SchemaError for an unsupported json_schema,
    // std::invalid_argument for a malformed request, SchedulerBusyError when the queue is full
    // or the scheduler is stopping.
    std::shared_ptr<RequestStream> submit(const ChatRequest& request);
    std::shared_ptr<RequestStream> submit(const CompletionRequest& request);

    // Refuses new requests (Stopping), ends queued ones with SchedulerBusyError(Stopping) and
    // cancels running ones. Idempotent.
    void stop();

    SchedulerCounters counters() const;
    const SchedulerOptions& options() const;
    int context_length() const;  // every row's
    const ModelInfo& model_info() const;

private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace hearth
