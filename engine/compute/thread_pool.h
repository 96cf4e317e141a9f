// A fixed set of worker threads for splitting one product across cores. Built once; a
// parallel_for allocates nothing and wakes workers through an atomic generation counter, which
// they spin on briefly before sleeping, so the hundreds of dispatches per token stay cheap and
// a machine shared with other work is not starved by idle spinning.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace hearth {

class ThreadPool final {
public:
    // `threads` in all, the calling thread included; 0 means one per hardware thread.
    explicit ThreadPool(int threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(m_workers.size()) + 1; }

    // Calls task(begin, end) on disjoint ranges covering [0, count), spread over the threads (a
    // thread may get several), and returns when all are done. Ranges are aligned to `grain`
    // items. Not reentrant.
    void parallel_for(size_t count, size_t grain, const std::function<void(size_t, size_t)>& task);

private:
    void work();
    void run_share();

    std::vector<std::thread> m_workers;
    std::atomic<uint64_t> m_generation{0};
    std::atomic<int> m_pending{0};
    std::atomic<bool> m_stopping{false};
    const std::function<void(size_t, size_t)>* m_task = nullptr;
    size_t m_count = 0;
    size_t m_grain = 1;
    size_t m_least_items = 1;
    std::atomic<size_t> m_next_item{0};
};

}  // namespace hearth
