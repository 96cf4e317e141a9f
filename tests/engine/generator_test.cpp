#include "engine/generator.h"

#include "engine/cpu_backend.h"

#include <gtest/gtest.h>

#include "tests/support/shared_data.h"

namespace hearth {
namespace {

class GeneratorTest : public testing::Test {
protected:
    static void SetUpTestSuite() {
        s_model = Model::load(test::model_path("stories260K.gguf")).release();
        s_tokenizer = make_tokenizer(s_model->file()).release();
        s_backend = new CpuBackend(*s_model, {.threads = 2});
    }
    static void TearDownTestSuite() {
        delete s_backend;
        delete s_tokenizer;
        delete s_model;
    }

    static GenerationRequest greedy(const std::string& text, int max_tokens) {
        GenerationRequest request;
        request.prompt = s_tokenizer->encode(text, {});
        request.max_tokens = max_tokens;
        request.sampler.temperature = 0.0f;
        return request;
    }

    static inline Model* s_model = nullptr;
    static inline Tokenizer* s_tokenizer = nullptr;
    static inline CpuBackend* s_backend = nullptr;
};

TEST_F(GeneratorTest, GreedyContinuationsEqualTheFixtures) {
    const auto json = test::load_json(test::fixture_path("models/stories260K.json"));
    ReferenceBackend reference(*s_model);
    for (Backend* backend : std::initializer_list<Backend*>{&reference, s_backend}) {
        Generator generator(*backend, *s_tokenizer, 2048);
        for (const auto& value : json["prompts"].toArray()) {
            const auto prompt = value.toObject();
            const auto expected = test::to_ids(prompt["generated_ids"].toArray());
            auto request =
                greedy(prompt["text"].toString().toStdString(), static_cast<int>(expected.size()));
            EXPECT_EQ(request.prompt, test::to_ids(prompt["tokens"].toArray()));
            std::vector<int32_t> tokens;
            std::string text;
            const auto stats =
                generator.generate(request, [&](int32_t token, std::string_view piece) {
                    if (token >= 0) tokens.push_back(token);
                    text += piece;
                    return true;
                });
            EXPECT_EQ(tokens, expected);
            EXPECT_EQ(text, s_tokenizer->decode(expected));
            EXPECT_EQ(stats.stop_reason, StopReason::MaxTokens);
            EXPECT_EQ(stats.generated_tokens, static_cast<int>(expected.size()));
            EXPECT_EQ(stats.prompt_tokens, static_cast<int>(request.prompt.size()));
            EXPECT_EQ(stats.token_times_ns.size(), expected.size());
            EXPECT_GT(stats.prefill_ns, 0);
            EXPECT_GE(stats.time_to_first_token_ns, stats.prefill_ns);
            EXPECT_TRUE(std::is_sorted(stats.token_times_ns.begin(), stats.token_times_ns.end()));
            EXPECT_GT(stats.decode_tokens_per_second(), 0.0);
        }
    }
}

TEST_F(GeneratorTest, TheSameSeedGivesTheSameTextAndOtherSeedsDiffer) {
    Generator generator(*s_backend, *s_tokenizer, 2048);
    const auto run = [&](uint64_t seed) {
        auto request = greedy("Once upon a time", 40);
        request.sampler = SamplerSettings{};
        request.sampler.seed = seed;
        std::string text;
        generator.generate(request, [&](int32_t, std::string_view piece) {
            text += piece;
            return true;
        });
        return text;
    };
    EXPECT_EQ(run(11), run(11));
    EXPECT_NE(run(11), run(12));
}

TEST_F(GeneratorTest, CancellingFromTheCallbackStopsAtOnce) {
    Generator generator(*s_backend, *s_tokenizer, 2048);
    int calls = 0;
    const auto stats = generator.generate(greedy("Once upon a time", 50),
                                          [&](int32_t, std::string_view) { return ++calls < 3; });
    EXPECT_EQ(calls, 3);
    EXPECT_EQ(stats.generated_tokens, 3);
    EXPECT_EQ(stats.stop_reason, StopReason::Cancelled);
}

TEST_F(GeneratorTest, StopsWhenTheContextIsFullAndRefusesPromptsThatDoNotFit) {
    Generator generator(*s_backend, *s_tokenizer, 12);
    const auto request = greedy("Once upon a time", 100);  // 5 prompt tokens
    const auto stats = generator.generate(request, [](int32_t, std::string_view) { return true; });
    EXPECT_EQ(stats.stop_reason, StopReason::ContextFull);
    EXPECT_EQ(stats.generated_tokens, 8);  // 5 + 7 fill the cache; the 8th needs no forward pass
    EXPECT_THROW(generator.generate(greedy("Lily and Tom went to the park. They saw a big", 1),
                                    [](int32_t, std::string_view) { return true; }),
                 ContextFullError);
}

TEST(Generator, StopsOnTheEndOfGenerationTokenWithoutEmittingIt) {
    // At a high temperature a random-weight model draws nearly uniformly from its 512 tokens, so
    // it reaches EOS (id 2) within 1,900 draws with probability 0.975.
    const auto model = Model::load(test::model_path("synth-llama-256-Q4_0.gguf"));
    const auto tokenizer = make_tokenizer(model->file());
    CpuBackend backend(*model, {.threads = 2});
    Generator generator(backend, *tokenizer, 2048);
    int stopped = 0;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        GenerationRequest request;
        request.prompt = {1, 100, 200};
        request.max_tokens = 1900;
        request.sampler = {
            .temperature = 50.0f, .top_k = 0, .top_p = 1.0f, .min_p = 0.0f, .seed = seed};
        bool saw_eos = false;
        const auto stats = generator.generate(request, [&](int32_t token, std::string_view) {
            saw_eos = saw_eos || token == 2;
            return true;
        });
        EXPECT_FALSE(saw_eos);
        if (stats.stop_reason == StopReason::EndOfGeneration) ++stopped;
    }
    EXPECT_GE(stopped, 3);
}

}  // namespace
}  // namespace hearth
