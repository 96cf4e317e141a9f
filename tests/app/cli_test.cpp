// hearth-cli as a user runs it: a real process on the real shared files.
#include <gtest/gtest.h>

#include <QJsonDocument>
#include <QProcess>

#include <cmath>

#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

struct CliResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

CliResult run_cli(const QStringList& arguments) {
    QProcess process;
    process.start(QStringLiteral(HEARTH_CLI_PATH), arguments);
    EXPECT_TRUE(process.waitForFinished(120000));
    return {process.exitCode(), process.readAllStandardOutput().toStdString(),
            process.readAllStandardError().toStdString()};
}

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
        EXPECT_NE(result.err.find("prompt tokens: " + tokens + " |"), std::string::npos)
            << result.err;
        EXPECT_NE(result.err.find("generated: 64 tokens"), std::string::npos) << result.err;
        EXPECT_NE(result.err.find("tok/s"), std::string::npos);
        EXPECT_NE(result.err.find("time to first token"), std::string::npos);
    }
}

TEST(Cli, UsesTheBundledModelWithoutDashM) {
    const auto result = run_cli({"-p", "Once upon a time", "-n", "3", "--temp", "0"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "Once upon a time, there was\n");
}

TEST(Cli, DumpLogitsAgreesWithTheFixture) {
    const auto json = test::load_json(test::fixture_path("models/synth-qwen2-256.json"));
    const auto prompt = json["prompts"][1].toObject();  // 9 tokens
    QStringList ids;
    for (const auto id : test::to_ids(prompt["tokens"].toArray())) ids << QString::number(id);
    const auto result = run_cli({"-m", shared_model("synth-qwen2-256.gguf"), "--prompt-ids",
                                 ids.join(','), "--dump-logits", "10", "-n", "4"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto dump = QJsonDocument::fromJson(QByteArray::fromStdString(result.out)).object();
    const auto ours = dump["prompt"].toArray();
    const auto expected = prompt["prompt_top10"].toArray();
    ASSERT_EQ(ours.size(), expected.size());
    for (qsizetype pos = 0; pos < ours.size(); ++pos) {
        EXPECT_EQ(test::to_ids(ours[pos]["ids"].toArray()),
                  test::to_ids(expected[pos]["ids"].toArray()))
            << pos;
        const auto our_logits = test::to_floats(ours[pos]["logits"].toArray());
        const auto expected_logits = test::to_floats(expected[pos]["logits"].toArray());
        for (size_t i = 0; i < our_logits.size(); ++i)
            EXPECT_NEAR(our_logits[i], expected_logits[i], 2e-5);
    }
    const auto greedy = dump["greedy"].toArray();
    ASSERT_EQ(greedy.size(), 4);
    for (qsizetype step = 0; step < greedy.size(); ++step) {
        EXPECT_EQ(greedy[step]["id"].toInt(), prompt["greedy"][step]["id"].toInt()) << step;
    }
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
    EXPECT_NE(result.err.find("the context holds only 64"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace hearth
