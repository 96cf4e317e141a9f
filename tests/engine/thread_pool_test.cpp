#include "engine/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>

namespace hearth {
namespace {

TEST(ThreadPool, CoversEveryIndexExactlyOnceOnGrainBoundaries) {
    ThreadPool pool(3);
    EXPECT_EQ(pool.size(), 3);
    for (const size_t count : {1u, 2u, 7u, 64u, 1000u, 4099u}) {
        std::vector<std::atomic<int>> hits(count);
        std::mutex mutex;
        std::set<std::thread::id> threads;
        pool.parallel_for(count, 16, [&](size_t begin, size_t end) {
            EXPECT_EQ(begin % 16, 0u);
            for (size_t i = begin; i < end; ++i) hits[i]++;
            std::lock_guard lock(mutex);
            threads.insert(std::this_thread::get_id());
        });
        for (size_t i = 0; i < count; ++i) ASSERT_EQ(hits[i].load(), 1) << count << " " << i;
        if (count >= 1000) {
            EXPECT_EQ(threads.size(), 3u);
        }
    }
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
