// hearth-bench's decode roofline: the bytes one decoded token reads, which for a mixture of
// experts are the active bytes (the router and the chosen experts), said so in its output.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include "tests/support/shared_data.h"

namespace hearth {
namespace {

// hearth-bench's output for the smallest run on `model`.
QByteArray bench_output(const char* model, const QStringList& extra = {}) {
    QProcess process;
    process.start(QStringLiteral(HEARTH_BENCH_PATH),
                  QStringList{"-m", QString::fromStdString(test::model_path(model).string()), "-p",
                              "4", "-n", "2", "-r", "1", "-t", "1"} +
                      extra);
    EXPECT_TRUE(process.waitForFinished(60000));
    EXPECT_EQ(process.exitCode(), 0) << process.readAllStandardError().toStdString();
    return process.readAllStandardOutput();
}

// synth-qwen3moe-256 (F32): 2,625,280 parameters, of which a token reads 1,838,848 (2 of 4
// experts' 786,432 per layer); the embedding contributes one 256-wide row, not its 131,072.
TEST(BenchMain, TheRooflineOfAMixtureOfExpertsCountsTheActiveBytes) {
    const auto json =
        QJsonDocument::fromJson(bench_output("synth-qwen3moe-256.gguf", {"--json"})).object();
    EXPECT_EQ(json["bytes_per_token"].toInteger(), (1'838'848 - 131'072 + 256) * 4);
    EXPECT_EQ(json["expert_count"].toInteger(), 4);
    EXPECT_EQ(json["experts_used"].toInteger(), 2);
    const QString text = bench_output("synth-qwen3moe-256.gguf");
    EXPECT_TRUE(text.contains("MiB read per decoded token, active bytes: 2 of 4 experts)"))
        << text.toStdString();
}

// A dense model reads every tensor once, counted from the fixture's tensor list (all F32), and
// one row of the embedding; a tied embedding is the output matrix too, read whole
// (synth-qwen3-256's is, synth-llama-256's is not).
TEST(BenchMain, ADenseModelReadsEveryWeight) {
    for (const char* stem : {"synth-llama-256", "synth-qwen3-256"}) {
        const auto fixture =
            test::load_json(test::fixture_path(std::string("models/") + stem + ".json"));
        int64_t elements = 0, embedding = 0;
        bool tied = true;
        for (const auto& value : fixture["model"].toObject()["tensors"].toArray()) {
            const auto tensor = value.toObject();
            ASSERT_EQ(tensor["type"], "F32");
            const auto shape = tensor["ne"].toArray();
            int64_t count = 1;
            for (const auto& extent : shape) count *= extent.toInteger();
            if (tensor["name"] == "token_embd.weight") {
                embedding = count;
                elements += shape[0].toInteger();
            } else {
                elements += count;
            }
            tied = tied && tensor["name"] != "output.weight";
        }
        if (tied) elements += embedding;
        const std::string file = std::string(stem) + ".gguf";
        const auto json = QJsonDocument::fromJson(bench_output(file.c_str(), {"--json"})).object();
        EXPECT_EQ(json["bytes_per_token"].toInteger(), elements * 4) << stem;
        EXPECT_EQ(json["expert_count"].toInteger(), 0) << stem;
        EXPECT_FALSE(bench_output(file.c_str()).contains("experts")) << stem;
    }
}

}  // namespace
}  // namespace hearth
