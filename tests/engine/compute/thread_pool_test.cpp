#include "engine/compute/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

namespace hearth {
namespace {

TEST(ThreadPool, CoversEveryIndexExactlyOnceOnGrainBoundaries) {
    ThreadPool pool(3);
    EXPECT_EQ(pool.size(), 3);
    for (const size_t count : {1u, 2u, 7u, 64u, 1000u, 4099u}) {
        std::vector<std::atomic<int>> hits(count);
        pool.parallel_for(count, 16, [&](size_t begin, size_t end) {
            EXPECT_EQ(begin % 16, 0u);
            for (size_t i = begin; i < end; ++i) hits[i]++;
        });
        for (size_t i = 0; i < count; ++i) ASSERT_EQ(hits[i].load(), 1) << count << " " << i;
    }
}

TEST(ThreadPool, SlowRangesAreSharedByEveryThread) {
    ThreadPool pool(3);
    std::mutex mutex;
    std::set<std::thread::id> threads;
    pool.parallel_for(1000, 16, [&](size_t, size_t) {
        {
            std::lock_guard lock(mutex);
            threads.insert(std::this_thread::get_id());
        }
        // Long enough that no thread can claim every range before the others wake.
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
    EXPECT_EQ(threads.size(), 3u);
}

TEST(ThreadPool, ManyQuickDispatchesInARow) {
    ThreadPool pool(2);
    std::atomic<long> total{0};
    for (int round = 0; round < 20000; ++round) {
        pool.parallel_for(
            64, 1, [&](size_t begin, size_t end) { total += static_cast<long>(end - begin); });
    }
    EXPECT_EQ(total.load(), 20000L * 64);
}

}  // namespace
}  // namespace hearth
