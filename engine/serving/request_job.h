// One request inside the scheduler: what it asks for, and the stream of events its row writes
// and its client reads. A request waiting in the queue past its deadline, or cancelled there,
// takes itself out of the queue.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

#include "engine/serving/batch_scheduler.h"

namespace hearth {

class JobQueue;

class RequestJob final : public RequestStream {
public:
    using Clock = std::chrono::steady_clock;

    // `request.cancel` is pointed at the job's own flag.
    RequestJob(GenerationRequest request, Clock::time_point deadline,
               std::weak_ptr<JobQueue> queue);

    std::optional<Event> next(std::chrono::milliseconds timeout) override;
    void cancel() override;
    bool started() const override { return m_started.load(); }

    // The scheduler's side.
    const GenerationRequest& request() const { return m_request; }
    Clock::time_point deadline() const { return m_deadline; }
    bool cancelled() const { return m_cancel.load(); }
    void start() { m_started.store(true); }
    void push(Event event);

private:
    // Out of the queue (if still there) with `end` as its last event.
    void leave_queue(Event end, bool refused);

    GenerationRequest m_request;
    Clock::time_point m_deadline;
    std::weak_ptr<JobQueue> m_queue;
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_started{false};
    std::mutex m_mutex;
    std::condition_variable m_arrived;
    std::deque<Event> m_events;
    bool m_ended = false;  // the last event has been pushed
};

// The requests waiting for a row, oldest first, at most `limit` of them.
class JobQueue final {
public:
    explicit JobQueue(int limit) : m_limit(limit) {}

    // Throws SchedulerBusyError(QueueFull) when full, (Stopping) once closed.
    void push(std::shared_ptr<RequestJob> job);
    // The oldest request still worth a row; those past their deadline leave with an error.
    std::shared_ptr<RequestJob> pop();
    // Takes `job` out; false when it was no longer queued (a row has it, or it left).
    bool remove(const RequestJob& job);
    // Refuses new requests and returns those that were waiting.
    std::deque<std::shared_ptr<RequestJob>> close();

    bool empty() const;
    int size() const;
    uint64_t refused() const;
    void count_refusal();

private:
    int m_limit;
    mutable std::mutex m_mutex;
    std::deque<std::shared_ptr<RequestJob>> m_jobs;
    uint64_t m_refused = 0;
    bool m_closed = false;
};

}  // namespace hearth
