#include "engine/generation/chunk_handoff.h"

#include <gtest/gtest.h>

#include <thread>

namespace hearth {
namespace {

TokenChunk chunk_of(int32_t token) {
    TokenChunk chunk;
    chunk.tokens.push_back(token);
    chunk.text = std::to_string(token) + ",";
    chunk.token_times_ns.push_back(token);
    return chunk;
}

TEST(ChunkHandoff, AConsumerThatFallsBehindGetsTheChunksJoinedInOrder) {
    ChunkHandoff handoff;
    TokenChunk producer = chunk_of(1);
    EXPECT_TRUE(handoff.publish(producer));  // the slot was empty: tell the consumer
    EXPECT_TRUE(producer.empty());
    producer = chunk_of(2);
    EXPECT_FALSE(handoff.publish(producer));  // still waiting: appended, no new notice needed
    TokenChunk consumer;
    ASSERT_TRUE(handoff.take(consumer));
    EXPECT_EQ(consumer.tokens, (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(consumer.text, "1,2,");
    EXPECT_EQ(consumer.token_times_ns, (std::vector<int64_t>{1, 2}));
    EXPECT_FALSE(handoff.take(consumer));
    EXPECT_TRUE(consumer.empty());
}

// The producer never waits for a slow consumer, and the consumer sees every token exactly once,
// in order, never a half-written chunk.
TEST(ChunkHandoff, AProducerNeverWaitsForASlowConsumer) {
    ChunkHandoff handoff;
    constexpr int kTokens = 20000;
    std::string received;
    std::vector<int32_t> tokens;
    std::thread consumer([&] {
        TokenChunk chunk;
        while (!handoff.drained()) {
            if (!handoff.take(chunk, std::chrono::milliseconds(5))) continue;
            EXPECT_EQ(chunk.tokens.size(), chunk.token_times_ns.size());
            received += chunk.text;
            tokens.insert(tokens.end(), chunk.tokens.begin(), chunk.tokens.end());
            std::this_thread::sleep_for(std::chrono::milliseconds(2));  // "rendering"
        }
    });
    std::string sent;
    const auto start = std::chrono::steady_clock::now();
    TokenChunk producer;
    for (int32_t token = 0; token < kTokens; ++token) {
        producer.tokens.push_back(token);
        producer.token_times_ns.push_back(token);
        producer.text += std::to_string(token) + ",";
        sent += std::to_string(token) + ",";
        if (token % 4 == 3) handoff.publish(producer);
    }
    handoff.publish(producer);
    const auto produced = std::chrono::steady_clock::now() - start;
    handoff.close();
    consumer.join();
    EXPECT_EQ(received, sent);
    ASSERT_EQ(tokens.size(), static_cast<size_t>(kTokens));
    for (int32_t i = 0; i < kTokens; ++i) ASSERT_EQ(tokens[static_cast<size_t>(i)], i);
    // 5,000 hand-offs against a consumer that sleeps 2 ms per take: waiting on it would take
    // seconds; not waiting takes milliseconds.
    EXPECT_LT(produced, std::chrono::milliseconds(1000));
}

TEST(ChunkHandoff, TakeWaitsUntilAChunkOrTheClose) {
    ChunkHandoff handoff;
    std::thread producer([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        TokenChunk chunk = chunk_of(7);
        handoff.publish(chunk);
        handoff.close();
    });
    TokenChunk chunk;
    EXPECT_TRUE(handoff.take(chunk, std::chrono::seconds(10)));
    EXPECT_EQ(chunk.tokens, std::vector<int32_t>{7});
    producer.join();
    EXPECT_FALSE(handoff.take(chunk, std::chrono::seconds(10)));  // closed: returns at once
    EXPECT_TRUE(handoff.drained());
}

}  // namespace
}  // namespace hearth
