#include "engine/thread_pool.h"

#include <algorithm>

namespace hearth {
namespace {

// About 30 microseconds: long enough to catch the next dispatch within a decode step, short
// enough that a core shared with other processes is soon given back (then the thread sleeps on
// the atomic, a futex).
constexpr int kSpinIterations = 2000;

constexpr size_t kPiecesPerThread = 4;

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
// fewer ranges instead of leaving the others waiting for its half.
void ThreadPool::run_share() {
    while (true) {
        const size_t piece = m_next_piece.fetch_add(1, std::memory_order_relaxed);
        const size_t begin = std::min(piece * m_piece_items, m_count);
        const size_t end = std::min(begin + m_piece_items, m_count);
        if (begin >= end) return;
        (*m_task)(begin, end);
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
    // A few pieces per thread: enough to even out, few enough that each stays one long
    // contiguous stream of weights for the prefetchers.
    grain = std::max<size_t>(grain, 1);
    const size_t grains = (count + grain - 1) / grain;
    const size_t pieces = std::min(grains, static_cast<size_t>(size()) * kPiecesPerThread);
    m_piece_items = (grains + pieces - 1) / pieces * grain;
    m_next_piece.store(0, std::memory_order_relaxed);
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
