#include "ui/performance_dashboard.h"

#include <gtest/gtest.h>

#include <QLabel>
#include <QTableWidget>
#include <QTest>

#include "app/core/history_store.h"
#include "app/core/server_status.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "ui/model_picker.h"
#include "ui/server_load_view.h"

namespace hearth::ui {
namespace {

GenerationStats sample_stats(int tokens) {
    GenerationStats stats;
    stats.prompt_tokens = 10;
    stats.prefilled_tokens = 10;
    stats.prefill_ns = 5'000'000;
    stats.time_to_first_token_ns = 6'000'000;
    stats.generated_tokens = tokens;
    for (int i = 0; i < tokens; ++i) stats.token_times_ns.push_back(6'000'000 + i * 2'000'000LL);
    stats.decode_ns = stats.token_times_ns.back() - stats.token_times_ns.front();
    return stats;
}

// The KV figure is the cache the model gets in the type the settings ask for: a Q8_0 cache's.
TEST(PerformanceDashboard, TheKvFigureFollowsTheCacheType) {
    PerformanceDashboard dashboard;
    const auto path = test::model_path("synth-llama-256-Q8_0.gguf");
    const auto* memory = dashboard.findChild<QLabel*>("memory");
    ASSERT_NE(memory, nullptr);
    for (const KvCacheType type : {KvCacheType::F16, KvCacheType::Q8_0}) {
        const auto info = read_model_info(path, {.kv_cache = type});
        dashboard.set_model(info, 4096);
        EXPECT_TRUE(memory->text().endsWith(byte_size_text(info.kv_bytes(4096))))
            << memory->text().toStdString();
    }
    EXPECT_NE(
        byte_size_text(read_model_info(path).kv_bytes(4096)),
        byte_size_text(read_model_info(path, {.kv_cache = KvCacheType::Q8_0}).kv_bytes(4096)));
}

TEST(PerformanceDashboard, PlotsOnePointPerTokenIntervalAndBinsTheLatencies) {
    PerformanceDashboard dashboard;
    dashboard.generation_started(2048);
    // Streamed in chunks, redrawn at most once per frame.
    const auto stats = sample_stats(40);
    TokenChunk chunk;
    for (int i = 0; i < 40; ++i) {
        chunk.token_times_ns.push_back(stats.token_times_ns[static_cast<size_t>(i)]);
        if (i % 8 == 7) {
            dashboard.add_chunk(chunk);
            chunk.clear();
        }
    }
    EXPECT_EQ(dashboard.redraws(), 0);
    EXPECT_TRUE(QTest::qWaitFor([&] { return dashboard.redraws() == 1; }, 1000));
    EXPECT_EQ(dashboard.rate_chart().point_count(), 39u);
    dashboard.generation_finished(stats);
    EXPECT_EQ(dashboard.rate_chart().point_count(), 39u);
    const auto& bins = dashboard.histogram_chart().histogram().counts;
    int total = 0;
    for (const int count : bins) total += count;
    EXPECT_EQ(total, 39);  // every interval is 2 ms: all in the first bin
    EXPECT_EQ(bins.front(), 39);
    EXPECT_EQ(dashboard.findChild<QLabel*>("generatedTokens")->text(), "40");
    EXPECT_EQ(dashboard.findChild<QLabel*>("firstToken")->text(), "6.0 ms");
    EXPECT_EQ(dashboard.findChild<QLabel*>("decodeRate")->text(), "500.0 tok/s");
    EXPECT_EQ(dashboard.findChild<QLabel*>("contextFill")->text(), "50 of 2048 tokens");
}

// A remote answer: the timings measured at the client, the prompt as the server's usage counted
// it (its prefill cannot be timed from here), or said to be unknown when it gave none.
TEST(PerformanceDashboard, ARemoteAnswerShowsClientTimingsAndTheServersUsage) {
    PerformanceDashboard dashboard;
    dashboard.generation_started(4096);
    auto stats = sample_stats(40);
    stats.prompt_tokens = 31;
    stats.cached_tokens = 12;
    dashboard.generation_finished(stats, true);
    EXPECT_EQ(dashboard.findChild<QLabel*>("prefillRate")->text(),
              "31 tokens, 12 cached (the server's usage)");
    EXPECT_EQ(dashboard.findChild<QLabel*>("firstToken")->text(), "6.0 ms");
    EXPECT_EQ(dashboard.findChild<QLabel*>("decodeRate")->text(), "500.0 tok/s");
    EXPECT_EQ(dashboard.rate_chart().point_count(), 39u);
    auto without_usage = sample_stats(5);
    without_usage.prompt_tokens = 0;
    dashboard.generation_finished(without_usage, true);
    EXPECT_EQ(dashboard.findChild<QLabel*>("prefillRate")->text(), "not reported by the server");
}

TEST(PerformanceDashboard, ListsPastAnswersAndStoredBenchmarks) {
    const test::TempDirectory directory;
    core::HistoryStore history(QString::fromStdString((directory.path() / "h.sqlite").string()));
    core::Conversation conversation(0, "x");
    const int id = history.create(conversation);
    core::Message answer;
    answer.id = 1;
    answer.role = "assistant";
    answer.text = "hi";
    answer.created_ms = 1000;
    answer.generation = core::GenerationRecord{
        .model_file = "/m/model.gguf", .backend = "cpu", .stats = sample_stats(5)};
    ASSERT_TRUE(history.save_message(id, answer));
    PerformanceDashboard dashboard;
    dashboard.set_history(&history);
    auto* past = dashboard.findChild<QTableWidget*>("pastGenerations");
    ASSERT_EQ(past->rowCount(), 1);
    EXPECT_EQ(past->item(0, 1)->text(), "model.gguf");
    EXPECT_EQ(past->item(0, 3)->text(), "5");
    // A remote answer is listed by its model and connection.
    answer.id = 2;
    answer.created_ms = 3000;
    answer.generation = core::GenerationRecord{.backend = "remote", .stats = sample_stats(3)};
    answer.generation->connection = "gpu-box";
    answer.generation->remote_model = "llama-70b";
    ASSERT_TRUE(history.save_message(id, answer));
    dashboard.set_history(&history);
    ASSERT_EQ(past->rowCount(), 2);
    EXPECT_EQ(past->item(0, 1)->text(), "llama-70b · on gpu-box");

    core::BenchmarkResult result{.created_ms = 2000,
                                 .model_file = "/m/model.gguf",
                                 .backend = "cpu",
                                 .machine = "Test CPU, 2 threads",
                                 .build = "Hearth test",
                                 .prompt_tokens = 512,
                                 .prompt_tokens_per_second = 300,
                                 .generated_tokens = 128,
                                 .generation_tokens_per_second = 200};
    dashboard.show_benchmark(result);
    auto* benchmarks = dashboard.findChild<QTableWidget*>("benchmarks");
    ASSERT_EQ(benchmarks->rowCount(), 1);
    EXPECT_EQ(benchmarks->item(0, 2)->text(), "Test CPU, 2 threads");
    EXPECT_EQ(history.benchmarks().front().generation_tokens_per_second, 200);
}

// The API server's load: hidden while it is stopped, then rows busy, queue and tokens/s as it
// reports them, one chart point per report, and a fresh line for the next run.
TEST(PerformanceDashboard, ShowsTheServersLoadWhileItRuns) {
    core::ServerStatus status;
    PerformanceDashboard dashboard;
    dashboard.set_server_status(status);
    dashboard.show();
    const auto* load = dashboard.server_load();
    ASSERT_NE(load, nullptr);
    EXPECT_FALSE(load->isVisible());
    status.set_state({.phase = core::ServerPhase::Running, .port = 8080, .rows = 8});
    EXPECT_TRUE(load->isVisible());
    for (int busy = 1; busy <= 3; ++busy) {
        status.set_counters({.rows = 8,
                             .rows_busy = busy,
                             .queue_depth = busy - 1,
                             .tokens_per_second = 10.0 * busy});
    }
    EXPECT_EQ(load->findChild<QLabel*>("serverRowsBusy")->text(), "3 of 8");
    EXPECT_EQ(load->findChild<QLabel*>("serverQueue")->text(), "2");
    EXPECT_EQ(load->findChild<QLabel*>("serverRate")->text(), "30.0 tok/s");
    EXPECT_EQ(load->chart()->point_count(), 3u);
    status.set_state({});
    EXPECT_FALSE(load->isVisible());
    status.set_state({.phase = core::ServerPhase::Starting, .rows = 8});
    EXPECT_EQ(load->chart()->point_count(), 0u);
}

}  // namespace
}  // namespace hearth::ui
