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

// The caller owns the first slice and claims it from the front, so while the other threads are
// busy with their own slices its claims follow each other from item 0 to the slice's end: one
// stream for the prefetchers, where ranges from one shared counter jumped.
TEST(ThreadPool, TheCallerClaimsItsSliceInOrderFromTheFirstItem) {
    for (const int threads : {2, 3}) {
        ThreadPool pool(threads);
        const size_t count = 4096, slice = count / static_cast<size_t>(threads) / 16 * 16;
        const auto caller = std::this_thread::get_id();
        for (int round = 0; round < 10; ++round) {
            std::vector<std::pair<size_t, size_t>> mine;
            pool.parallel_for(count, 16, [&](size_t begin, size_t end) {
                if (std::this_thread::get_id() == caller) {
                    mine.emplace_back(begin, end);
                } else {
                    // Slow enough that no other thread finishes before the caller's slice is done.
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
            });
            ASSERT_FALSE(mine.empty());
            EXPECT_EQ(mine.front().first, 0u);
            size_t reached = 0;
            for (const auto& [begin, end] : mine) {
                if (begin != reached) break;
                reached = end;
            }
            EXPECT_GE(reached, slice) << threads << " threads";
        }
    }
}

// A thread stuck in its first range leaves the rest of its slice to the others.
TEST(ThreadPool, AStalledThreadsSliceIsTakenByTheOthers) {
    ThreadPool pool(2);
    const auto caller = std::this_thread::get_id();
    std::atomic<size_t> taken{0};
    pool.parallel_for(64, 1, [&](size_t begin, size_t end) {
        if (std::this_thread::get_id() == caller) {
            if (begin == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
        } else {
            for (size_t i = begin; i < end; ++i) taken += i < 32 ? 1 : 0;
        }
    });
    EXPECT_GT(taken.load(), 0u);
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
