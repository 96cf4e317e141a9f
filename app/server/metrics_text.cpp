#include "app/server/metrics_text.h"

#include <fmt/format.h>

namespace hearth::server {
namespace {

template <typename Number>
void metric(std::string& out, const char* name, const char* type, const char* help, Number value) {
    out += fmt::format("# HELP hearth_{0} {1}\n# TYPE hearth_{0} {2}\nhearth_{0} {3}\n", name, help,
                       type, value);
}

}  // namespace

std::string metrics_text(const SchedulerCounters& counters) {
    std::string out;
    metric(out, "requests_total", "counter", "Requests accepted into the queue.",
           counters.requests_total);
    metric(out, "requests_refused_total", "counter",
           "Requests refused: queue full, waited too long, or the server stopping.",
           counters.requests_refused);
    metric(out, "requests_finished_total", "counter", "Requests completed, cancelled or failed.",
           counters.requests_finished);
    metric(out, "prompt_tokens_total", "counter", "Prompt tokens of accepted requests.",
           counters.prompt_tokens_total);
    metric(out, "cached_tokens_total", "counter", "Prompt tokens reused from a row's KV cache.",
           counters.cached_tokens_total);
    metric(out, "generated_tokens_total", "counter", "Tokens generated.",
           counters.generated_tokens_total);
    metric(out, "steps_total", "counter", "Batched decode steps run.", counters.steps_total);
    metric(out, "tokens_per_second", "gauge", "Generated tokens per second, recently.",
           counters.tokens_per_second);
    metric(out, "queue_depth", "gauge", "Requests waiting for a row.", counters.queue_depth);
    metric(out, "rows", "gauge", "User rows decoded together.", counters.rows);
    metric(out, "rows_busy", "gauge", "Rows running a request.", counters.rows_busy);
    metric(out, "kv_cache_bytes", "gauge", "Bytes reserved for every row's KV cache.",
           counters.kv_bytes);
    return out;
}

}  // namespace hearth::server
