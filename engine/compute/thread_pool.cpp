#include "engine/compute/thread_pool.h"

#include <algorithm>

namespace hearth {
namespace {

// About 30 microseconds: long enough to catch the next dispatch within a decode step, short
// enough that a core shared with other processes is soon given back (then the thread sleeps on
// the atomic, a futex).
constexpr int kSpinIterations = 2000;

// The shortest range a claim takes, as a fraction of one thread's even share: short enough to
// even out the end, long enough to stay a stream the prefetchers follow.
constexpr size_t kLeastShare = 16;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (int i = 1; i < threads; ++i) m_workers.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
    m_stopping = true;
    m_generation.fetch_add(1);
    m_generation.notify_all();
    for (auto& worker : m_workers) worker.join();
}

// Ranges are claimed from a shared counter rather than fixed per thread: a core that is slowed
// (by the other core's memory traffic, or by the host taking it for a moment) then simply claims
// fewer ranges instead of leaving the others waiting for its half. Each claim takes a share of
// what is left (guided scheduling): long contiguous ranges first, one stream each for the
// prefetchers, then ever shorter ones, so the threads run out of work at nearly the same time.
void ThreadPool::run_share() {
    const size_t shares = 2 * static_cast<size_t>(size());
    size_t begin = m_next_item.load(std::memory_order_relaxed);
    while (begin < m_count) {
        const size_t wanted = std::max((m_count - begin) / shares, m_least_items);
        const size_t end = std::min(m_count, begin + (wanted + m_grain - 1) / m_grain * m_grain);
        if (m_next_item.compare_exchange_weak(begin, end, std::memory_order_relaxed)) {
            (*m_task)(begin, end);
            begin = m_next_item.load(std::memory_order_relaxed);
        }
    }
}

void ThreadPool::parallel_for(size_t count, size_t grain,
                              const std::function<void(size_t, size_t)>& task) {
    if (count == 0) return;
    if (m_workers.empty() || count <= grain) {
        task(0, count);
        return;
    }
    m_task = &task;
    m_count = count;
    m_grain = std::max<size_t>(grain, 1);
    m_least_items = std::max(m_grain, count / (static_cast<size_t>(size()) * kLeastShare));
    m_next_item.store(0, std::memory_order_relaxed);
    m_pending.store(static_cast<int>(m_workers.size()), std::memory_order_relaxed);
    m_generation.fetch_add(1, std::memory_order_release);
    m_generation.notify_all();
    run_share();
    int spins = 0;
    for (int pending; (pending = m_pending.load(std::memory_order_acquire)) != 0;) {
        if (++spins < kSpinIterations) {
            cpu_relax();
        } else {
            m_pending.wait(pending, std::memory_order_acquire);
        }
    }
}

void ThreadPool::work() {
    uint64_t seen = 0;
    while (true) {
        int spins = 0;
        uint64_t current;
        while ((current = m_generation.load(std::memory_order_acquire)) == seen) {
            if (++spins < kSpinIterations) {
                cpu_relax();
            } else {
                m_generation.wait(seen, std::memory_order_acquire);
            }
        }
        seen = current;
        if (m_stopping.load()) return;
        run_share();
        if (m_pending.fetch_sub(1, std::memory_order_acq_rel) == 1) m_pending.notify_one();
    }
}

}  // namespace hearth
