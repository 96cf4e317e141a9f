#include "engine/serving/request_job.h"

#include <algorithm>

namespace hearth {
namespace {

std::exception_ptr waited_too_long() {
    return std::make_exception_ptr(SchedulerBusyError(
        SchedulerBusyError::Reason::WaitedTooLong,
        "every row stayed busy for as long as a request may wait; try again later"));
}

}  // namespace

RequestJob::RequestJob(GenerationRequest request, Clock::time_point deadline,
                       std::weak_ptr<JobQueue> queue)
    : m_request(std::move(request)), m_deadline(deadline), m_queue(std::move(queue)) {
    m_request.cancel = &m_cancel;
}

void RequestJob::push(Event event) {
    {
        std::lock_guard lock(m_mutex);
        if (m_ended) return;
        m_ended = !std::holds_alternative<TokenChunk>(event);
        m_events.push_back(std::move(event));
    }
    m_arrived.notify_all();
}

std::optional<RequestStream::Event> RequestJob::next(std::chrono::milliseconds timeout) {
    const auto until = Clock::now() + timeout;
    {
        std::unique_lock lock(m_mutex);
        const bool waiting = !m_started.load();
        const auto wake = waiting ? std::min(until, m_deadline) : until;
        m_arrived.wait_until(lock, wake, [&] { return !m_events.empty(); });
        if (!m_events.empty()) {
            Event event = std::move(m_events.front());
            m_events.pop_front();
            return event;
        }
    }
    if (!m_started.load() && Clock::now() >= m_deadline) {
        leave_queue(waited_too_long(), true);
        return next(std::chrono::milliseconds(0));
    }
    return std::nullopt;
}

// A request cancelled while it waits ends as a cancelled answer with no tokens.
void RequestJob::cancel() {
    m_cancel.store(true);
    GenerationResult nothing;
    nothing.stats.stop_reason = StopReason::Cancelled;
    leave_queue(std::move(nothing), false);
}

void RequestJob::leave_queue(Event end, bool refused) {
    const auto queue = m_queue.lock();
    if (queue && queue->remove(*this)) {
        if (refused) queue->count_refusal();
        push(std::move(end));
    }
}

void JobQueue::push(std::shared_ptr<RequestJob> job) {
    std::lock_guard lock(m_mutex);
    if (m_closed) {
        ++m_refused;
        throw SchedulerBusyError(SchedulerBusyError::Reason::Stopping,
                                 "the server is stopping and takes no new requests");
    }
    if (static_cast<int>(m_jobs.size()) >= m_limit) {
        ++m_refused;
        throw SchedulerBusyError(SchedulerBusyError::Reason::QueueFull,
                                 "every row is busy and " + std::to_string(m_limit) +
                                     " requests are already waiting; try again later");
    }
    m_jobs.push_back(std::move(job));
}

std::shared_ptr<RequestJob> JobQueue::pop() {
    std::unique_lock lock(m_mutex);
    while (!m_jobs.empty()) {
        auto job = std::move(m_jobs.front());
        m_jobs.pop_front();
        if (RequestJob::Clock::now() < job->deadline() && !job->cancelled()) return job;
        ++m_refused;
        lock.unlock();
        job->push(waited_too_long());
        lock.lock();
    }
    return nullptr;
}

bool JobQueue::remove(const RequestJob& job) {
    std::lock_guard lock(m_mutex);
    const auto found = std::find_if(m_jobs.begin(), m_jobs.end(),
                                    [&](const auto& queued) { return queued.get() == &job; });
    if (found == m_jobs.end()) return false;
    m_jobs.erase(found);
    return true;
}

std::deque<std::shared_ptr<RequestJob>> JobQueue::close() {
    std::lock_guard lock(m_mutex);
    m_closed = true;
    return std::exchange(m_jobs, {});
}

bool JobQueue::empty() const {
    std::lock_guard lock(m_mutex);
    return m_jobs.empty();
}

int JobQueue::size() const {
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_jobs.size());
}

uint64_t JobQueue::refused() const {
    std::lock_guard lock(m_mutex);
    return m_refused;
}

void JobQueue::count_refusal() {
    std::lock_guard lock(m_mutex);
    ++m_refused;
}

}  // namespace hearth
