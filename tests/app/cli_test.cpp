// hearth-cli as a user runs it: a real process on the real shared files.
#include <gtest/gtest.h>

#include <QJsonDocument>
#include <QProcess>

#include <cmath>
#include <fstream>
#include <stdexcept>

#include "engine/compute/vulkan/device.h"
#include "engine/text/jinja/json.h"
#include "engine/text/jinja/template.h"
#include "tests/support/build_version.h"
#include "tests/support/cli_process.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "tests/support/templated_model.h"
#include "tests/support/tokenizer_cases.h"
#include "tests/support/unsupported_files.h"

namespace hearth {
namespace {

using test::run_cli;

QString shared_model(const std::string& name) {
    return QString::fromStdString(test::model_path(name).string());
}

TEST(Cli, PrintsTheFixtureTextForEveryStoriesPrompt) {
    const auto json = test::load_json(test::fixture_path("models/stories260K.json"));
    for (const auto& value : json["prompts"].toArray()) {
        const auto prompt = value.toObject();
        const auto result = run_cli({"-m", shared_model("stories260K.gguf"), "-p",
                                     prompt["text"].toString(), "-n", "64", "--temp", "0"});
        ASSERT_EQ(result.exit_code, 0) << result.err;
        // full_text is the prompt and its continuation; llama.cpp keeps the dummy-prefix space
        // SentencePiece put in front of the prompt, which the CLI (printing what was typed) does
        // not.
        const std::string full = prompt["full_text"].toString().toStdString();
        EXPECT_EQ(result.out, full.substr(1) + "\n");
        const std::string tokens = std::to_string(prompt["n_tokens"].toInt());
        EXPECT_NE(
            result.err.find("prompt tokens: " + tokens + " (0 cached, " + tokens + " prefilled) |"),
            std::string::npos)
            << result.err;
        EXPECT_NE(result.err.find("generated: 64 tokens"), std::string::npos) << result.err;
        EXPECT_NE(result.err.find("tok/s"), std::string::npos);
        EXPECT_NE(result.err.find("time to first token"), std::string::npos);
    }
}

// A rebuild after a new commit must report that commit: the header is regenerated at every build.
TEST(Cli, VersionNamesTheVersionAndTheCommitOfTheTree) {
    const auto result = run_cli({"--version"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    test::expect_version_line(result.out, "hearth-cli");
}

TEST(Cli, UsesTheBundledModelWithoutDashM) {
    const auto result = run_cli({"-p", "Once upon a time", "-n", "3", "--temp", "0"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "Once upon a time, there was\n");
}

// --dump-logits on the second synth-qwen2-256 prompt (9 tokens) against the fixture: at every
// position the top-1 id (all ten ids when `every_id`) and the logits within `tolerance`, then
// the four greedy steps.
void expect_dump_matches_fixture(const QStringList& backend, double tolerance, bool every_id) {
    const auto json = test::load_json(test::fixture_path("models/synth-qwen2-256.json"));
    const auto prompt = json["prompts"][1].toObject();
    QStringList ids;
    for (const auto id : test::to_ids(prompt["tokens"].toArray())) ids << QString::number(id);
    const auto result =
        run_cli(QStringList{"-m", shared_model("synth-qwen2-256.gguf"), "--prompt-ids",
                            ids.join(','), "--dump-logits", "10", "-n", "4"} +
                backend);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto dump = QJsonDocument::fromJson(QByteArray::fromStdString(result.out)).object();
    const auto ours = dump["prompt"].toArray();
    const auto expected = prompt["prompt_top10"].toArray();
    ASSERT_EQ(ours.size(), expected.size());
    for (qsizetype pos = 0; pos < ours.size(); ++pos) {
        if (every_id) {
            EXPECT_EQ(test::to_ids(ours[pos]["ids"].toArray()),
                      test::to_ids(expected[pos]["ids"].toArray()))
                << pos;
        } else {
            EXPECT_EQ(ours[pos]["ids"][0].toInt(), expected[pos]["ids"][0].toInt()) << pos;
        }
        const auto our_logits = test::to_floats(ours[pos]["logits"].toArray());
        const auto expected_logits = test::to_floats(expected[pos]["logits"].toArray());
        for (size_t i = 0; i < our_logits.size(); ++i)
            EXPECT_NEAR(our_logits[i], expected_logits[i], tolerance);
    }
    const auto greedy = dump["greedy"].toArray();
    ASSERT_EQ(greedy.size(), 4);
    for (qsizetype step = 0; step < greedy.size(); ++step) {
        EXPECT_EQ(greedy[step]["id"].toInt(), prompt["greedy"][step]["id"].toInt()) << step;
    }
}

TEST(Cli, DumpLogitsAgreesWithTheFixture) {
    expect_dump_matches_fixture({"--backend", "reference"}, 2e-5, true);
}

TEST(Cli, ReportsBadInputClearly) {
    auto result = run_cli({"-m", "/nonexistent.gguf", "-p", "x"});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("/nonexistent.gguf: cannot open"), std::string::npos) << result.err;

    const test::TempDirectory directory;
    auto bytes = test::read_bytes(test::model_path("stories260K.gguf"));
    bytes.resize(bytes.size() / 2);
    const auto truncated = directory.write("half.gguf", bytes);
    result = run_cli({"-m", QString::fromStdString(truncated.string()), "-p", "x"});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("truncated or corrupt file"), std::string::npos) << result.err;

    result = run_cli({"-p", "x", "--top-k"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("option --top-k needs a value"), std::string::npos);
    EXPECT_NE(result.err.find("usage: hearth-cli"), std::string::npos);

    result = run_cli({"-p", std::string(3000, 'a').c_str(), "--ctx", "64", "-n", "1"});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("the context holds 64 tokens"), std::string::npos) << result.err;

    // The free-memory check runs before anything is mapped, from the picker's estimate.
    result =
        run_cli({"-m", shared_model("synth-llama-256.gguf"), "-p", "x", "--ctx", "1073741824"});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("at a context of 1073741824 tokens, but only"), std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find("MiB of memory is free"), std::string::npos) << result.err;

    result = run_cli({"-p", "x", "--backend", "metal"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("choose auto, cpu, vulkan, vulkan:N or reference"), std::string::npos)
        << result.err;

    const test::TempDirectory schema_directory;
    const std::string schema = R"({"type": "object", "maxProperties": 2})";
    const auto schema_path = schema_directory.write(
        "schema.json",
        std::vector<std::byte>(reinterpret_cast<const std::byte*>(schema.data()),
                               reinterpret_cast<const std::byte*>(schema.data()) + schema.size()));
    result = run_cli({"-p", "x", "--json-schema", QString::fromStdString(schema_path.string())});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("\"maxProperties\", which JSON mode does not support"),
              std::string::npos)
        << result.err;
}

TEST(Cli, StopStringsSpeculationJsonAndChunks) {
    const auto base = QStringList{
        "-m", shared_model("stories260K.gguf"), "-p", "Once upon a time", "-n", "80", "--temp",
        "0"};
    const auto plain = run_cli(base);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;

    auto result = run_cli(base + QStringList{"--stop", "Lily"});
    EXPECT_EQ(result.out, plain.out.substr(0, plain.out.find("Lily")) + "\n");
    EXPECT_NE(result.err.find("stop: stop string"), std::string::npos) << result.err;

    result = run_cli(base + QStringList{"--speculative", "--chunk", "3"});
    EXPECT_EQ(result.out, plain.out);
    EXPECT_NE(result.err.find("drafts: "), std::string::npos) << result.err;

    result = run_cli(base + QStringList{"--json", "--temp", "0.9", "--seed", "4"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::string answer = result.out.substr(std::string("Once upon a time").size());
    EXPECT_NO_THROW(jinja::parse_json(answer)) << answer;
    EXPECT_NE(result.err.find("stop: document complete"), std::string::npos) << result.err;
}

// The Vulkan device the tests run on: lavapipe here, named by index as a user would.
QStringList on_vulkan() {
    const auto devices = vulkan::list_devices();
    EXPECT_FALSE(devices.empty());
    return {"--backend", "vulkan", "--device",
            QString::number(devices.empty() ? 0 : devices[0].index)};
}

// Every mode of the command line on the Vulkan backend: the same greedy text as the CPU (chain
// decode, the argmax on the device), stop strings, speculation and JSON through the host's
// choice, reproducible device sampling, and --dump-logits against the fixture.
TEST(Cli, RunsEveryModeOnVulkan) {
    const auto listed = run_cli({"--list-devices"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_NE(listed.out.find("0: "), std::string::npos) << listed.out;

    const auto base = QStringList{
        "-m", shared_model("stories260K.gguf"), "-p", "Once upon a time", "-n", "80", "--temp",
        "0"};
    const auto cpu = run_cli(base);
    auto result = run_cli(base + on_vulkan());
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, cpu.out);
    EXPECT_NE(result.err.find("backend: vulkan ("), std::string::npos) << result.err;

    result = run_cli(base + on_vulkan() + QStringList{"--stop", "Lily"});
    EXPECT_EQ(result.out, cpu.out.substr(0, cpu.out.find("Lily")) + "\n");
    result = run_cli(base + on_vulkan() + QStringList{"--speculative"});
    EXPECT_EQ(result.out, cpu.out);
    result = run_cli(base + on_vulkan() + QStringList{"--json", "--temp", "0.9", "--seed", "4"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NO_THROW(jinja::parse_json(result.out.substr(std::string("Once upon a time").size())));

    const auto sampled = base + on_vulkan() + QStringList{"--temp", "0.8", "--seed", "11"};
    const auto first = run_cli(sampled), second = run_cli(sampled);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(first.out, second.out);
    EXPECT_NE(first.out, cpu.out);

    expect_dump_matches_fixture(on_vulkan(), 5e-3, false);

    result = run_cli(base + QStringList{"--device", "0"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("--device needs --backend vulkan"), std::string::npos);
    result = run_cli(base + QStringList{"--backend", "vulkan", "--device", "9"});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("device 9 does not exist"), std::string::npos) << result.err;
}

QString fixture(const std::string& relative) {
    return QString::fromStdString(test::fixture_path(relative).string());
}

TEST(Cli, TokenizesAndDetokenizesLikeTheFixtures) {
    const auto vocabulary = test::fixture_path("tokenizer/ggml-vocab-llama-bpe.gguf");
    int checked = 0;
    for (const auto& test_case : test::load_tokenizer_cases(vocabulary)) {
        if (test_case.ids.empty() || checked == 8) continue;
        const auto tokens = run_cli(
            {"-m", QString::fromStdString(vocabulary.string()), "--tokenize"}, test_case.text);
        ASSERT_EQ(tokens.exit_code, 0) << tokens.err;
        const auto parsed = jinja::parse_json(tokens.out);
        std::vector<int32_t> ids;
        for (const auto& id : parsed.as_array()) ids.push_back(static_cast<int32_t>(id.as_int()));
        EXPECT_EQ(ids, test_case.ids) << test_case.text;
        const auto text = run_cli(
            {"-m", QString::fromStdString(vocabulary.string()), "--detokenize"}, tokens.out);
        EXPECT_EQ(text.out, test_case.text);
        ++checked;
    }
    EXPECT_EQ(checked, 8);
    const auto special =
        run_cli({"-m", fixture("tokenizer/ggml-vocab-qwen2.gguf"), "--tokenize", "--parse-special"},
                "<|im_start|>user");
    EXPECT_EQ(special.out, "[151644, 872]\n");
}

TEST(Cli, ChatRendersTheTemplateOfAModelThatHasOne) {
    const test::TempDirectory directory;
    std::ofstream(directory.path() / "messages.json") << R"([{"role": "user", "content": "Hi"}])";
    const auto result = run_cli(
        {"--render-template", "-m", fixture("tokenizer/ggml-vocab-qwen2.gguf"), "--messages",
         QString::fromStdString((directory.path() / "messages.json").string()),
         "--add-generation-prompt"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out,
              "<|im_start|>system\nYou are a helpful "
              "assistant<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
    // The bundled model has no template: --chat continues the text.
    const auto chat = run_cli({"--chat", "-p", "Once upon a time", "-n", "3", "--temp", "0"});
    ASSERT_EQ(chat.exit_code, 0) << chat.err;
    EXPECT_EQ(chat.out, "Once upon a time, there was\n");
    EXPECT_NE(chat.err.find("plain continuation"), std::string::npos);
}

// The prompt's length as --chat logs it ("chat prompt: N tokens").
int chat_prompt_tokens(const std::string& err) {
    const auto at = err.find("chat prompt: ");
    return at == std::string::npos ? -1 : std::stoi(err.substr(at + 13));
}

// --think off renders Qwen3's empty think block and lengthens a chat's prompt by it; a model
// whose template has no switch says that --think changes nothing.
TEST(Cli, ThinkSwitchesTheTemplatesEnableThinking) {
    const test::TempDirectory directory;
    std::ofstream(directory.path() / "qwen3.jinja") << test::fixture_template("qwen3");
    std::ofstream(directory.path() / "messages.json")
        << R"([{"role": "user", "content": "Tell me a joke."}])";
    const auto rendered =
        run_cli({"--render-template", "--template-file",
                 QString::fromStdString((directory.path() / "qwen3.jinja").string()), "--messages",
                 QString::fromStdString((directory.path() / "messages.json").string()),
                 "--add-generation-prompt", "--think", "off"});
    ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
    EXPECT_EQ(rendered.out,
              "<|im_start|>user\nTell me a joke.<|im_end|>\n<|im_start|>assistant\n<think>\n\n"
              "</think>\n\n");

    const auto model = QString::fromStdString(
        test::model_with_template(directory, "stories260K.gguf", test::fixture_template("qwen3"))
            .string());
    const auto chat = [&](const char* think) {
        return run_cli({"-m", model, "--chat", "-p", "Tell me a joke.", "-n", "2", "--temp", "0",
                        "--backend", "cpu", "--think", think});
    };
    const auto on = chat("on"), off = chat("off");
    ASSERT_EQ(on.exit_code, 0) << on.err;
    ASSERT_EQ(off.exit_code, 0) << off.err;
    EXPECT_GT(chat_prompt_tokens(on.err), 0) << on.err;
    EXPECT_GT(chat_prompt_tokens(off.err), chat_prompt_tokens(on.err)) << off.err;
    EXPECT_EQ(off.err.find("has no effect"), std::string::npos);

    const auto plain =
        run_cli({"--chat", "-p", "Once upon a time", "-n", "1", "--temp", "0", "--think", "off"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_NE(plain.err.find("--think has no effect"), std::string::npos) << plain.err;
}

}  // namespace
}  // namespace hearth

namespace hearth {
namespace {

// --draft: another file of the same vocabulary drafts, and the answer is the same text; a file
// of another vocabulary is refused naming the difference.
TEST(Cli, ADraftModelLeavesTheGreedyAnswerAsItWas) {
    const QStringList base{"-m",     shared_model("synth-llama-256-F16.gguf"),
                           "-p",     "Once upon a time",
                           "-n",     "24",
                           "--temp", "0"};
    const auto plain = run_cli(base);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    const auto drafted =
        run_cli(QStringList(base) << "--draft" << shared_model("synth-llama-256-Q4_0.gguf"));
    ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
    EXPECT_EQ(drafted.out, plain.out);
    EXPECT_NE(drafted.err.find("drafts: "), std::string::npos) << drafted.err;
    const auto refused =
        run_cli(QStringList(base) << "--draft" << shared_model("llama-2-tiny-random.gguf"));
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.err.find("cannot draft for this model: its vocabulary has 32000 tokens"),
              std::string::npos)
        << refused.err;
}

}  // namespace
}  // namespace hearth
