#include "engine/runtime/session_pool.h"

#include <gtest/gtest.h>

#include "engine/compute/cpu_backend.h"
#include "tests/support/shared_data.h"

namespace hearth {
namespace {

class SessionPoolTest : public testing::Test {
protected:
    SessionPoolTest()
        : m_model(Model::load(test::model_path("stories260K.gguf"))),
          m_tokenizer(make_tokenizer(m_model->file())),
          m_backend(*m_model, {.threads = 1}) {}

    // Fills a session's cache with a short prompt and a few greedy tokens.
    void use(Session& session) {
        GenerationRequest request;
        request.prompt = m_tokenizer->encode("Once upon a time", {.add_special = true});
        request.max_tokens = 4;
        request.sampler.temperature = 0.0f;
        session.generate(request);
    }
    size_t bytes_at(int context) { return CpuBackend::kv_bytes(m_model->config(), context); }

    std::unique_ptr<Model> m_model;
    std::unique_ptr<Tokenizer> m_tokenizer;
    CpuBackend m_backend;
};

TEST_F(SessionPoolTest, AConversationGetsItsWarmCacheBack) {
    SessionPool pool(bytes_at(256) * 4);
    Session& first = pool.acquire(7, 256, m_backend, *m_tokenizer);
    use(first);
    EXPECT_GT(first.cached_tokens(), 0);
    pool.acquire(8, 256, m_backend, *m_tokenizer);
    Session& again = pool.acquire(7, 256, m_backend, *m_tokenizer);
    EXPECT_EQ(&again, &first);
    EXPECT_GT(again.cached_tokens(), 0);
    EXPECT_EQ(pool.bytes(), 2 * bytes_at(256));
    EXPECT_EQ(first.memory_bytes(), bytes_at(256));
}

TEST_F(SessionPoolTest, TheLeastRecentlyUsedGoWhenTheBudgetIsFull) {
    SessionPool pool(bytes_at(256) * 2 + bytes_at(256) / 2);  // two and a half caches
    pool.acquire(1, 256, m_backend, *m_tokenizer);
    pool.acquire(2, 256, m_backend, *m_tokenizer);
    pool.acquire(1, 256, m_backend, *m_tokenizer);  // 2 is now the least recently used
    pool.acquire(3, 256, m_backend, *m_tokenizer);
    EXPECT_TRUE(pool.holds(1));
    EXPECT_FALSE(pool.holds(2));
    EXPECT_TRUE(pool.holds(3));
    EXPECT_LE(pool.bytes(), pool.budget_bytes());
}

TEST_F(SessionPoolTest, TheBudgetCountsBytesNotConversations) {
    // One long context takes the room of four short ones.
    SessionPool pool(bytes_at(1024) + bytes_at(256) / 2);
    for (int id = 1; id <= 4; ++id) pool.acquire(id, 256, m_backend, *m_tokenizer);
    EXPECT_EQ(pool.size(), 4u);
    pool.acquire(5, 1024, m_backend, *m_tokenizer);
    EXPECT_EQ(pool.size(), 1u);
    EXPECT_TRUE(pool.holds(5));
}

TEST_F(SessionPoolTest, TheSessionInUseStaysEvenOverTheBudget) {
    SessionPool pool(bytes_at(256) / 2);
    Session& only = pool.acquire(1, 256, m_backend, *m_tokenizer);
    use(only);
    EXPECT_EQ(pool.size(), 1u);
    EXPECT_GT(pool.acquire(1, 256, m_backend, *m_tokenizer).cached_tokens(), 0);
    pool.acquire(2, 256, m_backend, *m_tokenizer);
    EXPECT_EQ(pool.size(), 1u);
    EXPECT_TRUE(pool.holds(2));
}

TEST_F(SessionPoolTest, ANewContextLengthReplacesTheConversationsCache) {
    SessionPool pool;
    use(pool.acquire(1, 256, m_backend, *m_tokenizer));
    Session& longer = pool.acquire(1, 512, m_backend, *m_tokenizer);
    EXPECT_EQ(longer.context_length(), 512);
    EXPECT_EQ(longer.cached_tokens(), 0);
    EXPECT_EQ(pool.size(), 1u);
}

}  // namespace
}  // namespace hearth
