// The scheduler's live counters in Prometheus' text exposition format (version 0.0.4), for
// GET /metrics: every metric with its HELP and TYPE lines, counters ending in _total.
#pragma once

#include <string>

#include "engine/serving/batch_scheduler.h"

namespace hearth::server {

std::string metrics_text(const SchedulerCounters& counters);

}  // namespace hearth::server
