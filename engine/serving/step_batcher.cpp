#include "engine/serving/step_batcher.h"

#include <algorithm>
#include <stdexcept>

namespace hearth {

StepBatcher::StepBatcher(Backend& backend, int step_tokens)
    : m_backend(backend), m_step_tokens(step_tokens), m_thread([this] { run(); }) {}

StepBatcher::~StepBatcher() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_asked.notify_all();
    m_thread.join();
}

void StepBatcher::activate() {
    std::lock_guard lock(m_mutex);
    ++m_active;
}

void StepBatcher::deactivate() {
    {
        std::lock_guard lock(m_mutex);
        --m_active;
    }
    m_asked.notify_all();  // the rows still active may be all waiting now
}

uint64_t StepBatcher::steps() const {
    std::lock_guard lock(m_mutex);
    return m_steps;
}

std::vector<float> StepBatcher::forward(std::span<const int32_t> tokens, Sequence& sequence,
                                        LogitRows rows) {
    Call call{.row = {tokens, &sequence, rows}};
    std::unique_lock lock(m_mutex);
    if (m_stopping) throw std::logic_error("the step batcher is stopping");
    m_pending.push_back(&call);
    m_asked.notify_all();
    m_ran.wait(lock, [&] { return call.done; });
    if (call.error) std::rethrow_exception(call.error);
    return std::move(call.logits);
}

bool StepBatcher::step_ready() const {
    return !m_pending.empty() && static_cast<int>(m_pending.size()) >= m_active;
}

// Every single-token call (a decoding row), then prompt chunks in the order asked while they
// fit the budget; a step is never empty.
std::vector<StepBatcher::Call*> StepBatcher::take_step() {
    std::vector<Call*> step;
    int prompt_tokens = 0;
    std::erase_if(m_pending, [&](Call* call) {
        const int size = static_cast<int>(call->row.tokens.size());
        if (size > 1) return false;
        step.push_back(call);
        return true;
    });
    std::erase_if(m_pending, [&](Call* call) {
        const int size = static_cast<int>(call->row.tokens.size());
        if (!step.empty() && prompt_tokens + size > m_step_tokens) return false;
        prompt_tokens += size;
        step.push_back(call);
        return true;
    });
    return step;
}

void StepBatcher::run() {
    std::unique_lock lock(m_mutex);
    while (true) {
        m_asked.wait(lock, [&] { return m_stopping || step_ready(); });
        if (m_stopping && m_pending.empty()) return;
        auto step = take_step();
        lock.unlock();
        {
            const std::lock_guard running(m_step_mutex);
            execute(step);
        }
        lock.lock();
        ++m_steps;
        for (Call* call : step) call->done = true;
        m_ran.notify_all();
    }
}

// One batched pass; should it fail, each call runs alone, so an error (a full context, say)
// reaches only the row it belongs to.
void StepBatcher::execute(std::span<Call* const> calls) {
    std::vector<BatchRow> rows;
    for (const Call* call : calls) rows.push_back(call->row);
    try {
        auto logits = m_backend.forward_batch(rows);
        for (size_t i = 0; i < calls.size(); ++i) calls[i]->logits = std::move(logits[i]);
        return;
    } catch (...) {
        if (calls.size() == 1) {
            calls.front()->error = std::current_exception();
            return;
        }
    }
    for (Call* call : calls) {
        try {
            call->logits = std::move(m_backend.forward_batch(std::span(&call->row, 1)).front());
        } catch (...) {
            call->error = std::current_exception();
        }
    }
}

}  // namespace hearth
