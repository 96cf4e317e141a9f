#include "engine/generation/session.h"

#include <gtest/gtest.h>

#include <thread>

#include "engine/compute/cpu_backend.h"
#include "engine/compute/reference_backend.h"
#include "engine/text/jinja/json.h"
#include "tests/support/fixture_check.h"
#include "tests/support/requests.h"
#include "tests/support/shared_data.h"
#include "tests/support/unsupported_files.h"

namespace hearth {
namespace {

struct Run {
    GenerationResult result;
    std::vector<TokenChunk> chunks;
    std::string joined;  // every chunk's text
};

Run run(Session& session, const GenerationRequest& request) {
    Run out;
    const GenerationSink sink{.on_chunk = [&](const TokenChunk& chunk) {
        out.chunks.push_back(chunk);
        out.joined += chunk.text;
        return true;
    }};
    out.result = session.generate(request, sink);
    return out;
}

using test::greedy;

class SessionTest : public testing::Test {
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
    static std::vector<int32_t> encode(const std::string& text) {
        return s_tokenizer->encode(text, {.add_special = true});
    }

    static inline Model* s_model = nullptr;
    static inline Tokenizer* s_tokenizer = nullptr;
    static inline CpuBackend* s_backend = nullptr;
};

TEST_F(SessionTest, GreedyContinuationsEqualTheFixturesOnBothBackends) {
    const auto json = test::load_json(test::fixture_path("models/stories260K.json"));
    ReferenceBackend reference(*s_model);
    for (Backend* backend : std::initializer_list<Backend*>{&reference, s_backend}) {
        for (const auto& value : json["prompts"].toArray()) {
            Session session(*backend, *s_tokenizer, 1024);
            const auto prompt = value.toObject();
            const auto expected = test::to_ids(prompt["generated_ids"].toArray());
            auto request = greedy(encode(prompt["text"].toString().toStdString()),
                                  static_cast<int>(expected.size()));
            EXPECT_EQ(request.prompt, test::to_ids(prompt["tokens"].toArray()));
            const auto out = run(session, request);
            const auto& stats = out.result.stats;
            EXPECT_EQ(out.result.tokens, expected) << backend->name();
            EXPECT_EQ(out.result.text, s_tokenizer->decode(expected));
            EXPECT_EQ(out.joined, out.result.text);
            EXPECT_EQ(stats.stop_reason, StopReason::MaxTokens);
            EXPECT_EQ(stats.generated_tokens, static_cast<int>(expected.size()));
            EXPECT_EQ(stats.prompt_tokens, static_cast<int>(request.prompt.size()));
            EXPECT_EQ(stats.prefilled_tokens, stats.prompt_tokens);
            EXPECT_EQ(stats.token_times_ns.size(), expected.size());
            EXPECT_GT(stats.prefill_ns, 0);
            EXPECT_GE(stats.time_to_first_token_ns, stats.prefill_ns);
            EXPECT_TRUE(std::is_sorted(stats.token_times_ns.begin(), stats.token_times_ns.end()));
            EXPECT_GT(stats.decode_tokens_per_second(), 0.0);
        }
    }
}

// Speculative decoding must not change a single token: on every model fixture and prompt, the
// batched verification produces exactly what plain greedy decoding produces.
// One shared file per test, so the files run side by side and each stays well inside the
// sanitizer build's time limit (all of them in one test took over 600 s on a loaded machine).
class SessionSpeculative : public testing::TestWithParam<std::string> {};

TEST_P(SessionSpeculative, EqualsPlainGreedyOnEveryFixturePrompt) {
    const std::string& name = GetParam();
    if (test::model_refused_as_listed(name)) return;
    const auto json = test::load_json(test::fixture_path("models/" + name + ".json"));
    const auto model = Model::load(test::model_path(name + ".gguf"));
    const auto tokenizer = make_tokenizer(model->file());
    CpuBackend backend(*model, {.threads = 2});
    int drafted = 0, accepted = 0, prompts = 0;
    for (const auto& value : json["prompts"].toArray()) {
        const auto prompt = test::to_ids(value.toObject()["tokens"].toArray());
        // Repetitive prompts give the drafter something to find.
        auto request = greedy(prompt, 48);
        Session plain_session(backend, *tokenizer, 1024);
        const auto plain = run(plain_session, request);
        request.speculative = true;
        Session speculative_session(backend, *tokenizer, 1024);
        const auto speculative = run(speculative_session, request);
        EXPECT_EQ(speculative.result.tokens, plain.result.tokens) << name;
        EXPECT_EQ(speculative.joined, plain.joined) << name;
        EXPECT_EQ(speculative.result.stats.stop_reason, plain.result.stats.stop_reason);
        drafted += speculative.result.stats.draft_tokens;
        accepted += speculative.result.stats.accepted_draft_tokens;
        ++prompts;
    }
    EXPECT_GE(prompts, 3);
    EXPECT_GT(drafted, 0);
    std::printf("speculative on %s: %d prompts, %d of %d drafted tokens accepted (%.1f%%)\n",
                name.c_str(), prompts, accepted, drafted, 100.0 * accepted / std::max(drafted, 1));
}

INSTANTIATE_TEST_SUITE_P(SharedModels, SessionSpeculative,
                         testing::ValuesIn(test::native_model_fixtures()),
                         [](const auto& info) { return test::parameter_name(info.param); });

TEST_F(SessionTest, TheSameSeedGivesTheSameTextAndOtherSeedsDiffer) {
    const auto sampled = [&](uint64_t seed) {
        Session session(*s_backend, *s_tokenizer, 1024);
        auto request = greedy(encode("Once upon a time"), 40);
        request.sampler = SamplerSettings{.seed = seed};
        return run(session, request).result.text;
    };
    EXPECT_EQ(sampled(11), sampled(11));
    EXPECT_NE(sampled(11), sampled(12));
}

TEST_F(SessionTest, ChunksHoldAtMostNTokensAndJoinToTheWholeText) {
    for (const int chunk_tokens : {1, 3, 8, 64}) {
        Session session(*s_backend, *s_tokenizer, 1024);
        auto request = greedy(encode("Lily and Tom went to the park."), 60);
        request.handoff.chunk_tokens = chunk_tokens;
        request.handoff.interval = std::chrono::hours(1);  // only the count triggers here
        const auto out = run(session, request);
        size_t tokens = 0;
        std::vector<int32_t> ids;
        for (size_t i = 0; i < out.chunks.size(); ++i) {
            const auto& chunk = out.chunks[i];
            EXPECT_LE(chunk.tokens.size(), static_cast<size_t>(chunk_tokens));
            EXPECT_EQ(chunk.tokens.size(), chunk.token_times_ns.size());
            // The first token goes out alone; full chunks follow; the last may be short.
            if (i == 0) {
                EXPECT_EQ(chunk.tokens.size(), 1u);
            }
            if (i > 0 && i + 1 < out.chunks.size()) {
                EXPECT_EQ(chunk.tokens.size(), static_cast<size_t>(chunk_tokens));
            }
            tokens += chunk.tokens.size();
            ids.insert(ids.end(), chunk.tokens.begin(), chunk.tokens.end());
        }
        EXPECT_EQ(tokens, 60u);
        EXPECT_EQ(ids, out.result.tokens);
        EXPECT_EQ(out.joined, s_tokenizer->decode(out.result.tokens));
    }
}

// A consumer that cannot keep up: at 5 tok/s (simulated by a slow sink interval) every token
// should still leave within the interval, not wait for a full chunk.
TEST_F(SessionTest, TheIntervalHandsOverPartialChunks) {
    Session session(*s_backend, *s_tokenizer, 1024);
    auto request = greedy(encode("Once upon a time"), 12);
    request.handoff.chunk_tokens = 1000;
    request.handoff.interval = std::chrono::milliseconds(0);
    const auto out = run(session, request);
    EXPECT_EQ(out.chunks.size(), 12u);  // every token crossed the (zero) interval
}

TEST_F(SessionTest, StopStringsNeverReachTheUserEvenSplitAcrossTokens) {
    Session session(*s_backend, *s_tokenizer, 1024);
    const auto full = run(session, greedy(encode("Once upon a time"), 60)).result.text;
    // "Lily" is several tokens in this vocabulary; stop strings that begin mid-token too.
    for (const std::string stop : {"Lily", "ily.", " park", "e was a", "\n"}) {
        const auto at = full.find(stop);
        ASSERT_NE(at, std::string::npos) << stop;
        auto request = greedy(encode("Once upon a time"), 60);
        request.stop_strings = {"never appears", stop};
        request.handoff.chunk_tokens = 1;
        const auto out = run(session, request);
        EXPECT_EQ(out.result.stats.stop_reason, StopReason::StopString) << stop;
        EXPECT_EQ(out.joined, full.substr(0, at)) << stop;
        for (const auto& chunk : out.chunks) EXPECT_EQ(chunk.text.find(stop), std::string::npos);
    }
    auto request = greedy(encode("Once upon a time"), 60);
    request.stop_strings = {"Lily went to the moon"};  // begins to match, then does not
    const auto out = run(session, request);
    EXPECT_EQ(out.result.stats.stop_reason, StopReason::MaxTokens);
    EXPECT_EQ(out.joined, full);
}

TEST_F(SessionTest, CancellingFromTheSinkStopsAtOnce) {
    Session session(*s_backend, *s_tokenizer, 1024);
    auto request = greedy(encode("Once upon a time"), 50);
    request.handoff.chunk_tokens = 1;
    int calls = 0;
    const auto result =
        session.generate(request, {.on_chunk = [&](const TokenChunk&) { return ++calls < 3; }});
    EXPECT_EQ(calls, 3);
    EXPECT_EQ(result.stats.generated_tokens, 3);
    EXPECT_EQ(result.stats.stop_reason, StopReason::Cancelled);
}

TEST_F(SessionTest, TheCancelFlagStopsDecodingWithinAStep) {
    Session session(*s_backend, *s_tokenizer, 1024);
    std::atomic<bool> cancel{false};
    auto request = greedy(encode("Once upon a time"), 200);
    request.cancel = &cancel;
    const auto result = session.generate(request, {.on_chunk = [&](const TokenChunk&) {
                                             cancel =
                                                 true;  // as a stop button on another thread would
                                             return true;
                                         }});
    EXPECT_EQ(result.stats.stop_reason, StopReason::Cancelled);
    EXPECT_EQ(result.stats.generated_tokens, 1);  // the flag is seen right after the hand-off
}

// A long prompt on a bigger synthetic model, cancelled from another thread once the first
// prefill step reports progress: the remaining steps do not run.
TEST(SessionCancel, CancellingDuringPrefillReturnsPromptly) {
    const auto model = Model::load(test::model_path("synth-llama-256-Q8_0.gguf"));
    const auto tokenizer = make_tokenizer(model->file());
    CpuBackend backend(*model, {.threads = 2, .chunk_sizes = {1, 8, 64}});
    Session session(backend, *tokenizer, 1024);
    std::atomic<bool> cancel{false};
    std::vector<int32_t> prompt(900);
    for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int32_t>(3 + i * 7 % 500);
    auto request = greedy(prompt, 10);
    request.cancel = &cancel;
    std::vector<int> progress;
    const auto result = session.generate(request, {.on_prefill = [&](int done, int total) {
                                             EXPECT_EQ(total, 900);
                                             progress.push_back(done);
                                             if (progress.size() == 2) cancel = true;
                                             return true;
                                         }});
    EXPECT_EQ(result.stats.stop_reason, StopReason::Cancelled);
    EXPECT_EQ(progress, (std::vector<int>{64, 128}));
    EXPECT_EQ(result.stats.generated_tokens, 0);
    EXPECT_EQ(session.cached_tokens(), 128);
    // The sink can cancel as well, and the next request reuses what was prefilled.
    cancel = false;
    const auto second =
        session.generate(request, {.on_prefill = [](int done, int) { return done < 128; }});
    EXPECT_EQ(second.stats.stop_reason, StopReason::Cancelled);
    EXPECT_EQ(second.stats.cached_tokens, 128);
    EXPECT_EQ(session.cached_tokens(), 256);
}

TEST_F(SessionTest, AFollowUpTurnPrefillsOnlyTheNewSuffix) {
    Session session(*s_backend, *s_tokenizer, 1024);
    auto request = greedy(encode("Once upon a time"), 20);
    const auto first = run(session, request).result;
    EXPECT_EQ(first.stats.prefilled_tokens, 5);
    // The next turn: the conversation so far, the answer, and a new message.
    auto next = request.prompt;
    next.insert(next.end(), first.tokens.begin(), first.tokens.end());
    const auto message = s_tokenizer->encode(" Then the dog said hello.", {});
    next.insert(next.end(), message.begin(), message.end());
    request.prompt = next;
    const auto second = run(session, request).result;
    // Everything but the answer's last token (never fed) and the new message was cached.
    EXPECT_EQ(second.stats.cached_tokens, 5 + 20 - 1);
    EXPECT_EQ(second.stats.prefilled_tokens, 1 + static_cast<int>(message.size()));
    // And the result is what a cold session computes.
    Session cold(*s_backend, *s_tokenizer, 1024);
    const auto fresh = run(cold, request).result;
    EXPECT_EQ(fresh.stats.prefilled_tokens, static_cast<int>(next.size()));
    EXPECT_EQ(second.tokens, fresh.tokens);
}

// Before any of the prompt is read the sink learns how it is laid out: its length, the part the
// cache already holds and the part to read, the figures the answer's result reports.
TEST_F(SessionTest, TheSinkLearnsThePromptsLayoutBeforeItIsRead) {
    Session session(*s_backend, *s_tokenizer, 1024);
    auto request = greedy(encode("Once upon a time"), 12);
    const auto first = run(session, request).result;
    request.prompt.insert(request.prompt.end(), first.tokens.begin(), first.tokens.end());
    std::vector<GenerationStats> laid_out;
    int events = 0, prompt_event = -1;
    const GenerationSink sink{.on_chunk =
                                  [&](const TokenChunk&) {
                                      ++events;
                                      return true;
                                  },
                              .on_prefill =
                                  [&](int, int) {
                                      ++events;
                                      return true;
                                  },
                              .on_prompt =
                                  [&](const GenerationStats& prompt) {
                                      prompt_event = events++;
                                      laid_out.push_back(prompt);
                                  }};
    const auto result = session.generate(request, sink);
    ASSERT_EQ(laid_out.size(), 1u);
    EXPECT_EQ(prompt_event, 0);  // before the prefill's progress and the first chunk
    EXPECT_EQ(laid_out[0].prompt_tokens, 5 + 12);
    EXPECT_EQ(laid_out[0].cached_tokens, 5 + 12 - 1);
    EXPECT_EQ(laid_out[0].prefilled_tokens, 1);
    EXPECT_EQ(laid_out[0].prompt_tokens, result.stats.prompt_tokens);
    EXPECT_EQ(laid_out[0].cached_tokens, result.stats.cached_tokens);
    EXPECT_EQ(laid_out[0].generated_tokens, 0);
}

TEST_F(SessionTest, RegeneratingOrEditingForksTheCacheAtTheChange) {
    Session session(*s_backend, *s_tokenizer, 1024);
    auto request = greedy(encode("Lily and Tom went to the park. They saw a big dog."), 16);
    const auto first = run(session, request).result;
    // Regenerate: the same prompt again runs only its last token.
    const auto again = run(session, request).result;
    EXPECT_EQ(again.stats.prefilled_tokens, 1);
    EXPECT_EQ(again.tokens, first.tokens);
    // Edit a word near the end: the cache forks at the first differing token.
    auto edited = encode("Lily and Tom went to the park. They saw a big cat.");
    const size_t fork = static_cast<size_t>(
        std::mismatch(edited.begin(), edited.end(), request.prompt.begin()).first - edited.begin());
    request.prompt = edited;
    const auto third = run(session, request).result;
    EXPECT_EQ(third.stats.cached_tokens, static_cast<int>(fork));
    EXPECT_EQ(third.stats.prefilled_tokens, static_cast<int>(edited.size() - fork));
    Session cold(*s_backend, *s_tokenizer, 1024);
    EXPECT_EQ(third.tokens, run(cold, request).result.tokens);
}

// An answer that outgrew the context took most of its prompt out of the cache to go on. Asked
// again (a regenerate) or edited, the prompt fits whole, so it is read whole: the cache is reused
// only up to the first token it lost, and the answer is a cold session's.
TEST_F(SessionTest, APromptThatFitsAgainAfterAnOverflowIsReadWhole) {
    Session session(*s_backend, *s_tokenizer, 64);
    auto request = greedy(encode("Lily and Tom went to the park. They saw a big dog."), 100);
    request.overflow = OverflowPolicy::RollingWindow;
    request.keep_tokens = 1;
    const int length = static_cast<int>(request.prompt.size());
    const auto first = run(session, request).result;
    ASSERT_GT(first.stats.dropped_tokens, 0);
    ASSERT_EQ(session.history().cached_before(length), 1);  // only the kept start is left
    const auto again = run(session, request).result;
    EXPECT_EQ(again.stats.cached_tokens, 1);
    EXPECT_EQ(again.stats.prefilled_tokens, length - 1);
    EXPECT_EQ(again.tokens, first.tokens);

    request.prompt = encode("Lily and Tom went to the park. They saw a big cat.");
    const auto edited = run(session, request).result;
    EXPECT_EQ(edited.stats.cached_tokens + edited.stats.prefilled_tokens,
              static_cast<int>(request.prompt.size()));
    Session cold(*s_backend, *s_tokenizer, 64);
    EXPECT_EQ(edited.tokens, run(cold, request).result.tokens);
}

TEST_F(SessionTest, TheStopPolicyRefusesPromptsThatDoNotFitAndStopsWhenFull) {
    Session session(*s_backend, *s_tokenizer, 12);
    const auto result = run(session, greedy(encode("Once upon a time"), 100)).result;  // 5 tokens
    EXPECT_EQ(result.stats.stop_reason, StopReason::ContextFull);
    EXPECT_EQ(result.stats.generated_tokens, 8);  // 5 + 7 fill the cache; the 8th needs no pass
    ASSERT_EQ(result.notices.size(), 1u);
    EXPECT_EQ(result.notices[0], (Notice{.kind = NoticeKind::ContextFilled, .context_tokens = 12}));
    try {
        run(session, greedy(encode("Lily and Tom went to the park. They saw a big"), 1));
        FAIL() << "a prompt longer than the context was accepted";
    } catch (const ContextFullError& error) {
        EXPECT_EQ(error.facts().capacity, 12);
        EXPECT_TRUE(error.facts().stop_policy);
        EXPECT_GT(error.facts().needed, 12);
    }
}

TEST_F(SessionTest, ARollingWindowKeepsTheStartAndGoesOnPastTheContext) {
    Session session(*s_backend, *s_tokenizer, 64);
    auto request = greedy(encode("Once upon a time"), 150);
    request.overflow = OverflowPolicy::RollingWindow;
    request.keep_tokens = 3;
    const auto out = run(session, request);
    EXPECT_EQ(out.result.stats.stop_reason, StopReason::MaxTokens);
    EXPECT_EQ(out.result.stats.generated_tokens, 150);
    EXPECT_GT(out.result.stats.dropped_tokens, 0);
    ASSERT_FALSE(out.result.notices.empty());
    const Notice& trimmed = out.result.notices.back();
    EXPECT_EQ(trimmed.kind, NoticeKind::AnswerTrimmed);
    EXPECT_EQ(trimmed.dropped, out.result.stats.dropped_tokens);
    EXPECT_EQ(trimmed.context_tokens, 64);
    EXPECT_LE(session.cached_tokens(), 64);
    // The kept start is still the cache's start.
    const auto& cached = session.history().cached();
    EXPECT_TRUE(std::equal(request.prompt.begin(), request.prompt.begin() + 3, cached.begin()));
    EXPECT_EQ(out.joined, s_tokenizer->decode(out.result.tokens));
}

TEST_F(SessionTest, OverflowingPromptsDropWholeOldTurnsAndTheNextTurnStillLinesUp) {
    // A "conversation" of turns, longer than the context.
    std::vector<int32_t> prompt{1};
    std::vector<int> turn_starts{0, 1};
    const std::string turns[] = {" Lily had a red ball.", " Tom liked to run in the park.",
                                 " The sun was warm and the sky was blue.",
                                 " They played all day long.", " Then they went home to eat."};
    for (const auto& turn : turns) {
        const auto ids = s_tokenizer->encode(turn, {});
        prompt.insert(prompt.end(), ids.begin(), ids.end());
        turn_starts.push_back(static_cast<int>(prompt.size()));
    }
    turn_starts.pop_back();
    const int length = static_cast<int>(prompt.size());
    for (const auto policy : {OverflowPolicy::RollingWindow, OverflowPolicy::TruncateMiddle}) {
        Session session(*s_backend, *s_tokenizer, length - 4);
        auto request = greedy(prompt, 8);
        request.turn_starts = turn_starts;
        request.keep_tokens = 1;
        request.overflow = policy;
        const auto first = run(session, request).result;
        EXPECT_GT(first.stats.dropped_tokens, 0);
        const auto& conversation = session.history().conversation();
        // Whole turns went: what is cached is the kept start plus complete later turns.
        const auto& cached = session.history().cached();
        EXPECT_EQ(cached.front(), 1);
        const int kept_turn = policy == OverflowPolicy::TruncateMiddle ? turn_starts[2] : 1;
        EXPECT_TRUE(std::equal(prompt.begin(), prompt.begin() + kept_turn, cached.begin()));
        // The notice carries the facts a front end phrases.
        ASSERT_FALSE(first.notices.empty());
        EXPECT_EQ(first.notices[0], (Notice{.kind = NoticeKind::PromptTrimmed,
                                            .dropped = first.stats.dropped_tokens,
                                            .kept = kept_turn,
                                            .conversation_tokens = length,
                                            .context_tokens = length - 4}));
        const int resume = kept_turn + first.stats.dropped_tokens;
        EXPECT_NE(std::find(turn_starts.begin(), turn_starts.end(), resume), turn_starts.end());
        EXPECT_TRUE(std::equal(prompt.begin() + resume, prompt.end(), cached.begin() + kept_turn));
        EXPECT_TRUE(std::equal(prompt.begin(), prompt.end(), conversation.begin()));
        // The next turn, with the answer appended, reuses the shifted cache.
        auto next = prompt;
        next.insert(next.end(), first.tokens.begin(), first.tokens.end());
        request.prompt = next;
        request.max_tokens = 1;
        const auto second = run(session, request).result;
        EXPECT_EQ(second.stats.prefilled_tokens, 1);
    }
}

// 100 seeds each on the bundled story model and a random-weight model (which would produce
// anything at all without the grammar): every answer is a whole JSON object.
// A model and a quarter of the seeds per test, for the same reason as SessionSpeculative.
struct JsonSeeds {
    const char* model;
    uint64_t first_seed;
};

class SessionJson : public testing::TestWithParam<JsonSeeds> {};

TEST_P(SessionJson, JsonModeAlwaysProducesJson) {
    constexpr uint64_t kSeeds = 25;
    const auto grammar = std::make_shared<const JsonGrammar>(JsonSchema::any_object());
    const auto [name, first_seed] = GetParam();
    const auto model = Model::load(test::model_path(name));
    const auto tokenizer = make_tokenizer(model->file());
    CpuBackend backend(*model, {.threads = 2});
    Session session(backend, *tokenizer, 1024);
    int complete = 0;
    for (uint64_t seed = first_seed; seed < first_seed + kSeeds; ++seed) {
        auto request = greedy(tokenizer->encode("Once upon a time", {.add_special = true}), 120);
        request.sampler = SamplerSettings{.temperature = 1.0f, .seed = seed};
        request.grammar = grammar;
        const auto out = run(session, request);
        EXPECT_NO_THROW(jinja::parse_json(out.joined)) << name << " " << seed << ": " << out.joined;
        EXPECT_EQ(out.joined.front(), '{');
        complete += out.result.stats.stop_reason == StopReason::DocumentComplete;
    }
    EXPECT_EQ(complete, kSeeds) << name;
}

INSTANTIATE_TEST_SUITE_P(Seeds, SessionJson,
                         testing::Values(JsonSeeds{"stories260K.gguf", 1},
                                         JsonSeeds{"stories260K.gguf", 26},
                                         JsonSeeds{"stories260K.gguf", 51},
                                         JsonSeeds{"stories260K.gguf", 76},
                                         JsonSeeds{"synth-llama-256-Q4_0.gguf", 1},
                                         JsonSeeds{"synth-llama-256-Q4_0.gguf", 26},
                                         JsonSeeds{"synth-llama-256-Q4_0.gguf", 51},
                                         JsonSeeds{"synth-llama-256-Q4_0.gguf", 76}),
                         [](const auto& info) {
                             return test::parameter_name(info.param.model) + "_from_" +
                                    std::to_string(info.param.first_seed);
                         });

}  // namespace
}  // namespace hearth
