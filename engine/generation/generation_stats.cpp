#include "engine/generation/generation_stats.h"

namespace hearth {

std::string_view stop_reason_name(StopReason reason) {
    switch (reason) {
        case StopReason::EndOfGeneration:
            return "end of generation";
        case StopReason::MaxTokens:
            return "max tokens";
        case StopReason::Cancelled:
            return "cancelled";
        case StopReason::ContextFull:
            return "context full";
        case StopReason::StopString:
            return "stop string";
        case StopReason::DocumentComplete:
            return "document complete";
        case StopReason::NoValidToken:
            return "no valid token";
    }
    return "unknown";
}

}  // namespace hearth
