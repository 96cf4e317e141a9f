// The engine as front ends use it: loads with the memory check, backend choice with reasons,
// warm conversations, chat requests with the overflow frame, and an answer that survives a
// lost GPU. Vulkan runs on whatever device the machine has (lavapipe in CI).
#include "engine/runtime/engine.h"

#include <gtest/gtest.h>

#include "engine/compute/kv_cache.h"
#include "engine/compute/vulkan/device.h"
#include "engine/model/load_error.h"
#include "engine/runtime/backend_selection.h"
#include "engine/runtime/memory_check.h"
#include "engine/text/chat_prompt.h"
#include "tests/support/requests.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "tests/support/templated_model.h"

namespace hearth {
namespace {

EngineOptions options_for(BackendPreference preference) {
    return {.backends = {.self_test_model = test::model_path("stories260K.gguf")},
            .backend = std::move(preference)};
}

ChatRequest question(int64_t conversation, const std::string& text, int max_tokens = 24) {
    return {.conversation = conversation,
            .messages = {{"user", text}},
            .max_tokens = max_tokens,
            .sampler = {.temperature = 0.0f},
            .fresh_seed = false};
}

BackendPreference named_vulkan_device() {
    const auto devices = vulkan::list_devices();
    EXPECT_FALSE(devices.empty());
    return {.kind = BackendPreference::Kind::Vulkan,
            .device = devices.empty() ? 0 : devices[0].index};
}

TEST(Engine, LoadsAModelAndAnswersAConversationReusingItsCache) {
    Engine engine(options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1}));
    EXPECT_FALSE(engine.loaded());
    const auto info = engine.load(test::model_path("stories260K.gguf"));
    EXPECT_TRUE(engine.loaded());
    EXPECT_EQ(info.architecture, "llama");
    EXPECT_TRUE(engine.backend_report().name.starts_with("cpu"));
    EXPECT_FALSE(engine.backend_report().notice.has_value());

    auto request = question(1, "Once upon a time");
    const auto first = engine.chat(request, {});
    EXPECT_EQ(first.stats.generated_tokens, 24);
    EXPECT_EQ(first.stats.cached_tokens, 0);
    // The next turn carries the whole conversation; only its new suffix is prefilled.
    request.messages.push_back({"assistant", first.text});
    request.messages.push_back({"user", "Then what?"});
    const auto second = engine.chat(request, {});
    EXPECT_GT(second.stats.cached_tokens, 0);
    EXPECT_LT(second.stats.prefilled_tokens, second.stats.prompt_tokens);
    EXPECT_TRUE(engine.sessions().holds(1));
}

TEST(Engine, AFailedLoadKeepsThePreviousModelRunning) {
    Engine engine(options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1}));
    engine.load(test::model_path("stories260K.gguf"));
    const test::TempDirectory directory;
    const std::string text = "GGUF but not really";
    std::vector<std::byte> bytes(text.size());
    std::transform(text.begin(), text.end(), bytes.begin(), [](char c) { return std::byte(c); });
    const auto broken = directory.write("broken.gguf", bytes);
    EXPECT_THROW(engine.load(broken), LoadError);
    EXPECT_THROW(engine.load(directory.path() / "missing.gguf"), LoadError);
    ASSERT_TRUE(engine.loaded());
    EXPECT_EQ(engine.chat(question(1, "Once upon a time", 4), {}).stats.generated_tokens, 4);
}

TEST(Engine, TheMemoryCheckRefusesAContextTheMachineCannotHold) {
    Engine engine(options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1}));
    // About 8 GiB of KV cache per 2^20 tokens for this model: a billion tokens is far beyond
    // any machine, and the refusal says so before anything is mapped.
    try {
        engine.load(test::model_path("synth-llama-256.gguf"), {}, 1 << 30);
        FAIL() << "loaded";
    } catch (const InsufficientMemoryError& error) {
        EXPECT_EQ(error.facts().context, 1 << 30);
        EXPECT_GT(error.facts().needed, error.facts().available);
    }
    EXPECT_FALSE(engine.loaded());
}

// Lavapipe is a CPU implementation, not a GPU: on a machine with nothing else, automatic runs
// the CPU backend without a notice; with a GPU, it runs there or says why not.
TEST(Engine, AutomaticTakesAGpuOnlyWhereOneExists) {
    Engine engine(options_for({}));
    engine.load(test::model_path("stories260K.gguf"));
    const auto report = engine.backend_report();
    if (has_gpu()) {
        EXPECT_TRUE(report.on_device || report.notice.has_value()) << report.name;
    } else {
        EXPECT_TRUE(report.name.starts_with("cpu")) << report.name;
        EXPECT_FALSE(report.on_device);
        EXPECT_FALSE(report.notice.has_value());
    }
}

// Automatic times a typical turn on the device and on the CPU and keeps the faster: lavapipe,
// let stand in for a GPU here, passes the self-test and loses the race (it runs the shaders on
// these same cores), so the model runs on the CPU with the two times in the notice.
TEST(Engine, AutomaticLeavesTheModelOnTheCpuWhereTheDeviceIsSlower) {
    auto options = options_for({});
    options.backends.cpu_devices_as_gpus = true;
    Engine engine(options);
    engine.load(test::model_path("synth-llama-256-Q4_0.gguf"));
    const auto report = engine.backend_report();
    EXPECT_TRUE(report.name.starts_with("cpu")) << report.name;
    EXPECT_FALSE(report.on_device);
    ASSERT_TRUE(report.notice.has_value());
    EXPECT_EQ(report.notice->kind, NoticeKind::GpuNotUsed);
    EXPECT_EQ(report.notice->problem, GpuProblem::SlowerThanCpu);
    EXPECT_NE(report.notice->device.find("vulkan"), std::string::npos) << report.notice->device;
    EXPECT_GT(report.notice->cpu_seconds, 0.0);
    EXPECT_GT(report.notice->device_seconds, report.notice->cpu_seconds / 0.9);
    // The model answers on the CPU it was left on.
    EXPECT_EQ(engine.chat(question(1, "Hello", 4), {}).stats.generated_tokens, 4);
}

// Cancelling a load while automatic times the device against the CPU cancels the load: the
// timing keeps asking the load's progress whether to go on, with the upload reported whole.
TEST(Engine, CancellingTheLoadStopsTheTiming) {
    const auto model = Model::load(test::model_path("synth-llama-256-Q4_0.gguf"));
    BackendSelector selector(
        {.self_test_model = test::model_path("stories260K.gguf"), .cpu_devices_as_gpus = true});
    int asked_after_upload = 0;
    const auto progress = [&](size_t done, size_t total) {
        if (done == 1 && total == 1) ++asked_after_upload;
        return asked_after_upload < 3;
    };
    try {
        selector.select({}, *model, progress);
        FAIL() << "the load was not cancelled";
    } catch (const LoadCancelled& error) {
        EXPECT_NE(std::string(error.what()).find("timed against the CPU"), std::string::npos)
            << error.what();
    }
    EXPECT_EQ(asked_after_upload, 3);
}

TEST(Engine, AnUnknownSettingRunsTheCpuAndSaysWhich) {
    std::vector<BackendReport> reports;
    auto options = options_for(backend_preference_from_setting("metal"));
    options.on_backend_changed = [&](const BackendReport& report) { reports.push_back(report); };
    Engine engine(options);
    engine.load(test::model_path("stories260K.gguf"));
    ASSERT_EQ(reports.size(), 1u);
    ASSERT_TRUE(reports[0].notice.has_value());
    EXPECT_EQ(reports[0].notice->problem, GpuProblem::UnknownSetting);
    EXPECT_EQ(reports[0].notice->detail, "metal");
    EXPECT_TRUE(reports[0].name.starts_with("cpu"));
}

TEST(Engine, ANamedDeviceThatCannotStartLeavesTheModelOnTheCpu) {
    auto preference = BackendPreference{.kind = BackendPreference::Kind::Vulkan, .device = 99};
    Engine engine(options_for(preference));
    engine.load(test::model_path("stories260K.gguf"));
    ASSERT_TRUE(engine.backend_report().notice.has_value());
    EXPECT_EQ(engine.backend_report().notice->kind, NoticeKind::GpuNotUsed);
    EXPECT_NE(engine.backend_report().notice->detail.find("device 99"), std::string::npos);
    // A front end that named the device on purpose gets the reason as an error instead.
    preference.fall_back_to_cpu = false;
    Engine strict(options_for(preference));
    EXPECT_THROW(strict.load(test::model_path("stories260K.gguf")), std::runtime_error);
}

// A mixture-of-experts model (qwen3moe, gpt-oss) asked of the GPU runs there (routing on the
// device), with no notice, and its greedy answer is the CPU's.
TEST(Engine, AMixtureOfExpertsModelAskedOfTheGpuRunsThere) {
    for (const char* name : {"synth-qwen3moe-256.gguf", "synth-gpt-oss-256.gguf"}) {
        const auto model = test::model_path(name);
        const auto request = test::greedy(test::salted_prompt(20, 3), 8);
        Engine on_cpu(options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1}));
        on_cpu.load(model);
        const auto expected = on_cpu.generate(1, 512, request);
        Engine engine(options_for(named_vulkan_device()));
        engine.load(model);
        const auto& report = engine.backend_report();
        EXPECT_TRUE(report.on_device) << name << ": " << report.name;
        EXPECT_TRUE(report.name.starts_with("vulkan")) << name << ": " << report.name;
        EXPECT_FALSE(report.notice.has_value()) << name << ": " << report.notice->detail;
        const auto answer = engine.generate(1, 512, request);
        EXPECT_EQ(answer.stats.generated_tokens, 8) << name;
        EXPECT_EQ(answer.tokens, expected.tokens) << name;
    }
}

TEST(Engine, ChangingTheBackendMovesTheModelAndForgetsTheOldCaches) {
    std::vector<BackendReport> reports;
    auto options = options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1});
    options.on_backend_changed = [&](const BackendReport& report) { reports.push_back(report); };
    Engine engine(options);
    engine.load(test::model_path("stories260K.gguf"));
    const auto on_cpu = engine.chat(question(1, "Once upon a time"), {});
    engine.set_backend({.kind = BackendPreference::Kind::Cpu, .threads = 1});  // no change
    EXPECT_EQ(reports.size(), 1u);
    engine.set_backend(named_vulkan_device());
    ASSERT_EQ(reports.size(), 2u);
    EXPECT_TRUE(reports[1].on_device) << (reports[1].notice ? reports[1].notice->detail : "");
    EXPECT_FALSE(engine.sessions().holds(1));
    EXPECT_EQ(engine.chat(question(1, "Once upon a time"), {}).text, on_cpu.text);
}

// The KV cache type is part of the preference: a load counts the cache asked for in its memory
// check, a change rebuilds the backend (whose name says so) and the model's facts follow it.
TEST(Engine, TheKvCacheTypeFollowsThePreference) {
    using Kind = BackendPreference::Kind;
    Engine engine(options_for({.kind = Kind::Cpu, .threads = 1, .kv_cache = KvCacheType::Q8_0}));
    const auto q8_0 = engine.load(test::model_path("synth-llama-256-Q8_0.gguf"));
    EXPECT_EQ(q8_0.kv_cache, KvCacheType::Q8_0);
    EXPECT_NE(engine.backend_report().name.find("q8_0 cache"), std::string::npos)
        << engine.backend_report().name;
    const auto answer = engine.generate(1, 512, test::greedy(test::salted_prompt(20, 3), 8));
    EXPECT_EQ(answer.stats.generated_tokens, 8);
    engine.set_backend({.kind = Kind::Cpu, .threads = 1});
    EXPECT_EQ(engine.backend_report().name.find("q8_0"), std::string::npos);
    EXPECT_EQ(engine.model_info().kv_cache, KvCacheType::F16);
    EXPECT_EQ(engine.model_info().kv_bytes(512) * 34, q8_0.kv_bytes(512) * 64);
    EXPECT_FALSE(engine.sessions().holds(1));
}

// A 60-token answer in chunks of 4, every chunk appended to `streamed` as a window shows it.
GenerationResult chat_streaming(Engine& engine, std::string& streamed) {
    return engine.chat(question(1, "Once upon a time", 60), {.chunk_tokens = 4},
                       {.on_chunk = [&](const TokenChunk& chunk) {
                           streamed += chunk.text;
                           return true;
                       }});
}

TEST(Engine, ALostGpuHandsTheAnswerToTheCpuMidway) {
    Engine cpu(options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1}));
    cpu.load(test::model_path("stories260K.gguf"));
    const auto expected = cpu.chat(question(1, "Once upon a time", 60), {});

    std::vector<BackendReport> reports;
    auto options = options_for(named_vulkan_device());
    options.on_backend_changed = [&](const BackendReport& report) { reports.push_back(report); };
    Engine engine(options);
    engine.load(test::model_path("stories260K.gguf"));
    ASSERT_TRUE(engine.backend_report().on_device);
    engine.inject_device_loss(3);  // after the prompt and a chunk of the answer
    std::string streamed;
    const auto result = chat_streaming(engine, streamed);
    EXPECT_EQ(result.text, expected.text);
    EXPECT_EQ(streamed, expected.text);  // nothing shown twice, nothing lost
    EXPECT_EQ(result.stats.generated_tokens, 60);
    ASSERT_FALSE(result.notices.empty());
    EXPECT_EQ(result.notices[0].kind, NoticeKind::GpuLost);
    EXPECT_TRUE(result.notices[0].resumed);
    EXPECT_FALSE(engine.backend_report().on_device);
    ASSERT_EQ(reports.size(), 2u);
    EXPECT_EQ(reports[1].notice, result.notices[0]);
    // The conversation goes on, on the CPU.
    EXPECT_EQ(engine.chat(question(2, "The end", 4), {}).stats.generated_tokens, 4);
}

// The device fails while a chain-decode submission runs, with the next one already queued
// behind it (not when work is handed to it): the answer still finishes on the CPU, equal to the
// CPU's own, nothing shown twice.
TEST(Engine, AGpuLostWhileASubmissionRunsHandsTheAnswerToTheCpu) {
    Engine cpu(options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1}));
    cpu.load(test::model_path("stories260K.gguf"));
    const auto expected = cpu.chat(question(1, "Once upon a time", 60), {});

    Engine engine(options_for(named_vulkan_device()));
    engine.load(test::model_path("stories260K.gguf"));
    ASSERT_TRUE(engine.backend_report().on_device);
    engine.inject_device_loss(3, /*while_running=*/true);
    std::string streamed;
    const auto result = chat_streaming(engine, streamed);
    EXPECT_EQ(result.text, expected.text);
    EXPECT_EQ(streamed, expected.text);
    EXPECT_EQ(result.stats.generated_tokens, 60);
    ASSERT_FALSE(result.notices.empty());
    EXPECT_EQ(result.notices[0].kind, NoticeKind::GpuLost);
    EXPECT_TRUE(result.notices[0].resumed);
    // Reported by the wait for the running work, not by a refused submission.
    EXPECT_NE(result.notices[0].detail.find("waiting for"), std::string::npos)
        << result.notices[0].detail;
    EXPECT_FALSE(engine.backend_report().on_device);
}

TEST(Engine, AJsonAnswerCannotResumeMidwaySoItEndsWithTheError) {
    Engine engine(options_for(named_vulkan_device()));
    engine.load(test::model_path("stories260K.gguf"));
    ASSERT_TRUE(engine.backend_report().on_device);
    engine.inject_device_loss(1);  // after the prompt
    auto request = question(1, "Once upon a time", 60);
    request.json_mode = true;
    EXPECT_THROW(engine.chat(request, {}), vulkan::VulkanError);
    EXPECT_FALSE(engine.backend_report().on_device);
    ASSERT_TRUE(engine.backend_report().notice.has_value());
    EXPECT_FALSE(engine.backend_report().notice->resumed);
}

TEST(Engine, ChatRequestsNearTheLimitCarryTurnStartsAndKeepTheSystemPrompt) {
    Engine engine(options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1}));
    engine.load(test::model_path("synth-qwen2-256.gguf"));  // a ChatML template
    ChatRequest chat{.messages = {{"system", "Be brief."},
                                  {"user", "Hello there"},
                                  {"assistant", "Hi"},
                                  {"user", "Tell me a story"}},
                     .max_tokens = 16,
                     .fresh_seed = false};
    const auto roomy = engine.chat_generation_request(chat, {}, 4096);
    EXPECT_TRUE(roomy.turn_starts.empty());  // far from the limit: not measured
    EXPECT_EQ(roomy.sampler.seed, chat.sampler.seed);
    const int tight = static_cast<int>(roomy.prompt.size()) + 8;
    const auto request = engine.chat_generation_request(chat, {.chunk_tokens = 3}, tight);
    EXPECT_EQ(request.prompt, roomy.prompt);
    ASSERT_EQ(request.turn_starts.size(), 4u);
    EXPECT_EQ(request.turn_starts[0], 0);
    EXPECT_TRUE(std::is_sorted(request.turn_starts.begin(), request.turn_starts.end()));
    EXPECT_EQ(request.keep_tokens, request.turn_starts[1]);  // the system prompt stays
    EXPECT_EQ(request.handoff.chunk_tokens, 3);
    // Each turn start is where the conversation up to that message ends.
    const auto head =
        build_chat_prompt(engine.chat_template(), engine.tokenizer(),
                          {chat.messages[0], chat.messages[1]}, {.add_generation_prompt = false});
    EXPECT_EQ(request.turn_starts[2], static_cast<int>(head.tokens.size()));
}

TEST(Engine, AConversationThatCannotFitIsRefusedWithItsNumbers) {
    Engine engine(options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1}));
    engine.load(test::model_path("stories260K.gguf"));
    auto request = question(1, "Once upon a time there was a little girl named Lily", 4);
    request.context_length = 8;
    request.overflow = OverflowPolicy::Stop;
    try {
        engine.chat(request, {});
        FAIL() << "accepted";
    } catch (const ContextFullError& error) {
        EXPECT_EQ(error.facts().capacity, 8);
        EXPECT_TRUE(error.facts().stop_policy);
    }
}

// The request's thinking choice reaches the template: Qwen3's, on a model the engine runs, opens
// an empty think block when thinking is off, and unset leaves the template's default.
TEST(Engine, AChatRequestPassesItsThinkingChoiceToTheTemplate) {
    const test::TempDirectory directory;
    Engine engine(options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1}));
    engine.load(
        test::model_with_template(directory, "stories260K.gguf", test::fixture_template("qwen3")));
    ASSERT_TRUE(engine.chat_template().has_thinking_switch());
    auto chat = question(1, "Tell me a joke.", 4);
    const auto rendered = [&](std::optional<bool> thinking) {
        return build_chat_prompt(engine.chat_template(), engine.tokenizer(), chat.messages,
                                 {.enable_thinking = thinking});
    };
    EXPECT_TRUE(rendered(false).text.ends_with("<|im_start|>assistant\n<think>\n\n</think>\n\n"));
    EXPECT_EQ(engine.chat_generation_request(chat, {}, 4096).prompt, rendered({}).tokens);
    chat.enable_thinking = false;
    EXPECT_EQ(engine.chat_generation_request(chat, {}, 4096).prompt, rendered(false).tokens);
    EXPECT_NE(rendered(false).tokens, rendered({}).tokens);
    const auto answer = engine.chat(chat, {});
    EXPECT_EQ(answer.stats.prompt_tokens, static_cast<int>(rendered(false).tokens.size()));
    EXPECT_EQ(answer.stats.generated_tokens, 4);
}

// A template Hearth cannot run (here ChatML's with an {% include %}, which a model file can never
// satisfy) is replaced by its family's built-in format, and every answer says so, naming the
// construct, so the user learns why answers may be off.
TEST(Engine, AnAnswerSaysWhenTheTemplateFellBackToTheBuiltInFormat) {
    const test::TempDirectory directory;
    Engine engine(options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1}));
    engine.load(test::model_with_template(
        directory, "stories260K.gguf", test::fixture_template("chatml") + "{% include 'tools' %}"));
    const auto answer = engine.chat(question(1, "Tell me a joke.", 2), {});
    ASSERT_FALSE(answer.notices.empty());
    EXPECT_EQ(answer.notices.front().kind, NoticeKind::TemplateFallback);
    EXPECT_NE(answer.notices.front().detail.find("include"), std::string::npos)
        << answer.notices.front().detail;
    EXPECT_EQ(answer.stats.generated_tokens, 2);
}

// Near the limit, where each message begins is measured with the same choice: SmolLM3's header
// (before the first message) differs with it, by a whole paragraph.
TEST(Engine, TurnStartsAreMeasuredWithTheThinkingChoice) {
    const test::TempDirectory directory;
    Engine engine(options_for({.kind = BackendPreference::Kind::Cpu, .threads = 1}));
    engine.load(test::model_with_template(directory, "stories260K.gguf",
                                          test::fixture_template("smollm3-llamacpp")));
    ChatRequest chat{
        .messages = {{"user", "Hello there"}, {"assistant", "Hi"}, {"user", "Tell me a story"}},
        .max_tokens = 16,
        .fresh_seed = false};
    for (const bool thinking : {true, false}) {
        chat.enable_thinking = thinking;
        const auto roomy = engine.chat_generation_request(chat, {}, 4096);
        const auto tight =
            engine.chat_generation_request(chat, {}, static_cast<int>(roomy.prompt.size()) + 8);
        ASSERT_EQ(tight.turn_starts.size(), 3u) << thinking;
        for (int message = 1; message < 3; ++message) {
            const std::vector<ChatMessage> head(chat.messages.begin(),
                                                chat.messages.begin() + message);
            const auto prefix =
                build_chat_prompt(engine.chat_template(), engine.tokenizer(), head,
                                  {.add_generation_prompt = false, .enable_thinking = thinking});
            EXPECT_EQ(tight.turn_starts[message], static_cast<int>(prefix.tokens.size()))
                << thinking << " " << message;
        }
    }
}

}  // namespace
}  // namespace hearth
