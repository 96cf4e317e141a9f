// The batch scheduler on real models: a request's answer with seven other rows busy is the
// answer it gets alone, bit for bit, on every shared model; rows are freed, queued, refused and
// reused as the API promises.
#include "engine/serving/batch_scheduler.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "engine/compute/kv_cache.h"
#include "engine/compute/vulkan/device_info.h"
#include "engine/grammar/json_schema.h"
#include "engine/text/jinja/json.h"
#include "tests/support/fixture_check.h"
#include "tests/support/shared_data.h"
#include "tests/support/unsupported_files.h"

namespace hearth {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<Engine> engine_on(const std::filesystem::path& model, BackendPreference backend) {
    auto engine = std::make_unique<Engine>(
        EngineOptions{.backends = {.self_test_model = test::model_path("stories260K.gguf")},
                      .backend = std::move(backend)});
    engine->load(model);
    return engine;
}

std::unique_ptr<Engine> cpu_engine(const std::filesystem::path& model) {
    return engine_on(model, {.kind = BackendPreference::Kind::Cpu, .threads = 2});
}

CompletionRequest completion(const std::string& text, int max_tokens, float temperature = 0.0f,
                             uint64_t seed = 0) {
    return {.prompt = text,
            .options = {.max_tokens = max_tokens,
                        .sampler = {.temperature = temperature, .seed = seed},
                        .fresh_seed = false,
                        .overflow = OverflowPolicy::Stop}};
}

// Reads a stream to its end: the result, or the error rethrown.
GenerationResult finish(RequestStream& stream, std::string streamed = {}) {
    for (;;) {
        auto event = stream.next(60s);
        if (!event) throw std::runtime_error("no event for a minute");
        if (auto* chunk = std::get_if<TokenChunk>(&*event)) {
            streamed += chunk->text;
        } else if (auto* result = std::get_if<GenerationResult>(&*event)) {
            EXPECT_EQ(streamed, result->text);  // the chunks carried the whole answer
            return std::move(*result);
        } else {
            std::rethrow_exception(std::get<std::exception_ptr>(*event));
        }
    }
}

// Seven requests that keep the other rows busy: greedy and sampled, short and long prompts (one
// prefills while the others decode).
std::vector<std::shared_ptr<RequestStream>> busy_neighbours(BatchScheduler& scheduler) {
    std::vector<std::shared_ptr<RequestStream>> streams;
    std::string long_prompt;
    for (int i = 0; i < 12; ++i) long_prompt += "the little dog ran home again, ";
    for (int i = 0; i < 7; ++i) {
        const std::string text =
            i == 3 ? long_prompt : "Row " + std::to_string(i) + " tells a story about";
        streams.push_back(
            scheduler.submit(completion(text, 48, i % 2 == 0 ? 0.0f : 0.9f, 100 + i)));
    }
    return streams;
}

class SchedulerModelTest : public testing::TestWithParam<std::string> {};

TEST_P(SchedulerModelTest, AnAnswerBesideSevenBusyRowsEqualsItsAnswerAlone) {
    const auto path = test::model_path(GetParam());
    if (const auto* entry = test::find_unsupported(GetParam())) {
        test::expect_refused(*entry, [&] { cpu_engine(path); });
        return;
    }
    const auto target = completion("Once upon a time, in a small town,", 24);
    std::vector<int32_t> alone;
    {
        auto engine = cpu_engine(path);
        BatchScheduler scheduler(*engine, {.rows = 8});
        alone = finish(*scheduler.submit(target)).tokens;
    }
    auto engine = cpu_engine(path);
    BatchScheduler scheduler(*engine, {.rows = 8});
    auto neighbours = busy_neighbours(scheduler);
    const auto beside = finish(*scheduler.submit(target));
    EXPECT_EQ(beside.tokens, alone);
    for (auto& stream : neighbours) EXPECT_NO_THROW(finish(*stream));
    EXPECT_GT(scheduler.counters().steps_total, 0u);
}

std::vector<std::string> shared_model_files() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(test::shared_dir() / "models")) {
        if (entry.path().extension() == ".gguf") names.push_back(entry.path().filename());
    }
    std::sort(names.begin(), names.end());
    return names;
}

INSTANTIATE_TEST_SUITE_P(SharedModels, SchedulerModelTest, testing::ValuesIn(shared_model_files()),
                         [](const auto& info) { return test::parameter_name(info.param); });

TEST(BatchScheduler, ASeededSampledAnswerIsTheSameWhateverRunsBesideIt) {
    const auto target = completion("The moon said", 32, 0.9f, 42);
    auto engine = cpu_engine(test::model_path("stories260K.gguf"));
    std::vector<int32_t> alone;
    {
        BatchScheduler scheduler(*engine, {.rows = 8});
        alone = finish(*scheduler.submit(target)).tokens;
    }
    BatchScheduler scheduler(*engine, {.rows = 8});
    auto neighbours = busy_neighbours(scheduler);
    EXPECT_EQ(finish(*scheduler.submit(target)).tokens, alone);
    for (auto& stream : neighbours) finish(*stream);
}

// A GPU backend runs a step's rows one after another (correct, not yet batched): the answer is
// still the one it gets alone, and rows changing their caches between steps do not race the
// device.
TEST(BatchScheduler, OnAVulkanDeviceAnAnswerBesideBusyRowsEqualsItsAnswerAlone) {
    const auto devices = vulkan::list_devices();
    ASSERT_FALSE(devices.empty()) << "no Vulkan device (lavapipe is expected everywhere)";
    const BackendPreference vulkan{.kind = BackendPreference::Kind::Vulkan,
                                   .device = devices[0].index};
    const auto target = completion("Once upon a time", 24);
    auto engine = engine_on(test::model_path("stories260K.gguf"), vulkan);
    ASSERT_TRUE(engine->backend_report().on_device);
    std::vector<int32_t> alone;
    {
        BatchScheduler scheduler(*engine, {.rows = 3});
        alone = finish(*scheduler.submit(target)).tokens;
    }
    BatchScheduler scheduler(*engine, {.rows = 3});
    auto first = scheduler.submit(completion("The cat", 32, 0.9f, 7));
    auto second = scheduler.submit(completion("A dog and a bird", 32));
    EXPECT_EQ(finish(*scheduler.submit(target)).tokens, alone);
    finish(*first);
    finish(*second);
}

TEST(BatchScheduler, ACancelledAnswerFreesItsRowWithinAStep) {
    auto engine = cpu_engine(test::model_path("stories260K.gguf"));
    BatchScheduler scheduler(*engine, {.rows = 2, .context_length = 2048});
    auto stream = scheduler.submit(completion("Once", 2000));
    auto first = stream->next(60s);
    ASSERT_TRUE(first && std::holds_alternative<TokenChunk>(*first));
    const uint64_t steps = scheduler.counters().steps_total;
    stream->cancel();
    std::string streamed = std::get<TokenChunk>(*first).text;
    const auto result = finish(*stream, streamed);
    EXPECT_EQ(result.stats.stop_reason, StopReason::Cancelled);
    EXPECT_LT(result.stats.generated_tokens, 2000);
    // The row is free once the result is out; the cancel took effect in the step then running
    // or the next.
    const auto counters = scheduler.counters();
    EXPECT_EQ(counters.rows_busy, 0);
    EXPECT_LE(counters.steps_total, steps + 2);
}

TEST(BatchScheduler, RequestsQueueBeyondTheRowsAndAreRefusedWhenTheQueueIsFull) {
    auto engine = cpu_engine(test::model_path("stories260K.gguf"));
    BatchScheduler scheduler(*engine, {.rows = 1, .context_length = 2048, .queue_limit = 1});
    auto running = scheduler.submit(completion("Once", 2000));
    auto queued = scheduler.submit(completion("Twice", 4));
    try {
        scheduler.submit(completion("Thrice", 4));
        ADD_FAILURE() << "a third request was taken with one row and a queue of one";
    } catch (const SchedulerBusyError& error) {
        EXPECT_EQ(error.reason(), SchedulerBusyError::Reason::QueueFull);
    }
    EXPECT_FALSE(queued->started());
    EXPECT_EQ(scheduler.counters().queue_depth, 1);
    running->cancel();
    finish(*running);
    const auto answer = finish(*queued);  // the freed row takes the queued request
    EXPECT_GT(answer.stats.generated_tokens, 0);
    EXPECT_EQ(scheduler.counters().requests_refused, 1u);
}

TEST(BatchScheduler, WithNoQueueAFreeRowStillTakesARequestAndABusyOneRefusesAtOnce) {
    auto engine = cpu_engine(test::model_path("stories260K.gguf"));
    BatchScheduler scheduler(*engine, {.rows = 1, .context_length = 2048, .queue_limit = 0});
    auto running = scheduler.submit(completion("Once", 2000));
    EXPECT_THROW(scheduler.submit(completion("Twice", 4)), SchedulerBusyError);
    running->cancel();
    finish(*running);
    EXPECT_GT(finish(*scheduler.submit(completion("Thrice", 4))).stats.generated_tokens, 0);
}

TEST(BatchScheduler, AQueuedRequestWaitsABoundedTimeThenIsRefused) {
    auto engine = cpu_engine(test::model_path("stories260K.gguf"));
    BatchScheduler scheduler(*engine, {.rows = 1, .context_length = 2048, .queue_wait = 200ms});
    auto running = scheduler.submit(completion("Once", 2000));
    auto queued = scheduler.submit(completion("Twice", 4));
    try {
        finish(*queued);
        ADD_FAILURE() << "the queued request ran although the only row stayed busy";
    } catch (const SchedulerBusyError& error) {
        EXPECT_EQ(error.reason(), SchedulerBusyError::Reason::WaitedTooLong);
    }
    running->cancel();
    finish(*running);
}

TEST(BatchScheduler, StoppingEndsEveryRequestAndRefusesNewOnes) {
    auto engine = cpu_engine(test::model_path("stories260K.gguf"));
    BatchScheduler scheduler(*engine, {.rows = 1, .context_length = 2048});
    auto running = scheduler.submit(completion("Once", 2000));
    auto queued = scheduler.submit(completion("Twice", 4));
    scheduler.stop();
    EXPECT_EQ(finish(*running).stats.stop_reason, StopReason::Cancelled);
    EXPECT_THROW(finish(*queued), SchedulerBusyError);
    EXPECT_THROW(scheduler.submit(completion("Again", 4)), SchedulerBusyError);
}

TEST(BatchScheduler, APromptLongerThanTheContextIsRefusedNamingBothSizes) {
    auto engine = cpu_engine(test::model_path("stories260K.gguf"));
    BatchScheduler scheduler(*engine, {.rows = 2, .context_length = 64});
    std::string text;
    for (int i = 0; i < 50; ++i) text += "one more word ";
    try {
        scheduler.submit(completion(text, 4));
        ADD_FAILURE() << "a prompt past the context was taken";
    } catch (const ContextFullError& error) {
        EXPECT_EQ(error.facts().capacity, 64);
        EXPECT_GT(error.facts().needed, 64);
    }
    EXPECT_EQ(scheduler.counters().requests_total, 0u);
}

TEST(BatchScheduler, AConversationComingBackPrefillsOnlyWhatIsNew) {
    auto engine = cpu_engine(test::model_path("synth-llama-256-Q4_0.gguf"));
    BatchScheduler scheduler(*engine, {.rows = 4});
    ChatRequest chat{.messages = {{"user", "Tell me about the sea."}},
                     .max_tokens = 16,
                     .sampler = {.temperature = 0.0f},
                     .fresh_seed = false,
                     .overflow = OverflowPolicy::Stop};
    // Other conversations occupy rows in between, so the match is by content, not by luck.
    finish(*scheduler.submit(completion("Something else entirely", 8)));
    const auto first = finish(*scheduler.submit(chat));
    finish(*scheduler.submit(completion("And another thing", 8)));
    chat.messages.push_back({"assistant", first.text});
    chat.messages.push_back({"user", "And the mountains?"});
    const auto second = finish(*scheduler.submit(chat));
    EXPECT_GE(second.stats.cached_tokens, first.stats.prompt_tokens - 1);
    EXPECT_LT(second.stats.prefilled_tokens,
              second.stats.prompt_tokens - first.stats.prompt_tokens + 16);
    EXPECT_GT(scheduler.counters().cached_tokens_total, 0u);
}

TEST(BatchScheduler, AJsonSchemaShapesTheAnswerAndAnUnsupportedOneIsRefusedAtOnce) {
    auto engine = cpu_engine(test::model_path("stories260K.gguf"));
    BatchScheduler scheduler(*engine, {.rows = 2});
    auto request = completion("{", 200);
    request.options.json_schema =
        R"({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]})";
    const auto answer = finish(*scheduler.submit(request));
    const auto document = jinja::parse_json(answer.text);
    EXPECT_TRUE(document.is_object()) << answer.text;
    request.options.json_schema = R"({"type":"object","patternProperties":{}})";
    EXPECT_THROW(scheduler.submit(request), SchemaError);
}

TEST(BatchScheduler, OptionsOutOfRangeAreRefused) {
    auto engine = cpu_engine(test::model_path("stories260K.gguf"));
    EXPECT_THROW(BatchScheduler(*engine, {.rows = 0}), std::invalid_argument);
    EXPECT_THROW(BatchScheduler(*engine, {.rows = 33}), std::invalid_argument);
}

}  // namespace
}  // namespace hearth
