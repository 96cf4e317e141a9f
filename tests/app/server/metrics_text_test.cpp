#include "app/server/metrics_text.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace hearth::server {
namespace {

// Samples by name; every sample must follow its own HELP and TYPE lines.
std::map<std::string, std::string> samples(const std::string& text) {
    std::map<std::string, std::string> out;
    std::istringstream lines(text);
    std::string line, help, type;
    while (std::getline(lines, line)) {
        if (line.rfind("# HELP ", 0) == 0) {
            help = line.substr(7, line.find(' ', 7) - 7);
        } else if (line.rfind("# TYPE ", 0) == 0) {
            type = line.substr(7, line.find(' ', 7) - 7);
        } else {
            const std::string name = line.substr(0, line.find(' '));
            EXPECT_EQ(name, help);
            EXPECT_EQ(name, type);
            out[name] = line.substr(line.find(' ') + 1);
        }
    }
    return out;
}

TEST(MetricsText, EveryCounterIsASampleWithHelpAndType) {
    SchedulerCounters counters{.rows = 8,
                               .rows_busy = 3,
                               .queue_depth = 2,
                               .requests_total = 40,
                               .requests_refused = 1,
                               .requests_finished = 35,
                               .prompt_tokens_total = 1200,
                               .cached_tokens_total = 300,
                               .generated_tokens_total = 900,
                               .steps_total = 500,
                               .tokens_per_second = 123.5,
                               .kv_bytes = size_t{1} << 30};
    const std::string text = metrics_text(counters);
    const std::map<std::string, std::string> expected{{"hearth_requests_total", "40"},
                                                      {"hearth_requests_refused_total", "1"},
                                                      {"hearth_requests_finished_total", "35"},
                                                      {"hearth_prompt_tokens_total", "1200"},
                                                      {"hearth_cached_tokens_total", "300"},
                                                      {"hearth_generated_tokens_total", "900"},
                                                      {"hearth_steps_total", "500"},
                                                      {"hearth_tokens_per_second", "123.5"},
                                                      {"hearth_queue_depth", "2"},
                                                      {"hearth_rows", "8"},
                                                      {"hearth_rows_busy", "3"},
                                                      {"hearth_kv_cache_bytes", "1073741824"}};
    EXPECT_EQ(samples(text), expected);
    EXPECT_NE(text.find("# TYPE hearth_requests_total counter\n"), std::string::npos);
    EXPECT_NE(text.find("# TYPE hearth_rows_busy gauge\n"), std::string::npos);
}

}  // namespace
}  // namespace hearth::server
