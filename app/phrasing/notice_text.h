// The engine's facts in words for users: the one place every front end (window, CLI, later the
// server) phrases notices and the typed errors, so they say the same thing.
#pragma once

#include <exception>
#include <string>

#include "engine/compute/kv_cache.h"
#include "engine/generation/notice.h"
#include "engine/runtime/memory_check.h"

namespace hearth {

std::string notice_text(const Notice& notice);
// Every notice, joined by spaces.
std::string notices_text(const Notices& notices);
std::string shortfall_text(const ContextShortfall& shortfall);
std::string shortfall_text(const MemoryShortfall& shortfall);
// A failed request's exception in words: the typed errors phrased, any other its own message.
std::string error_text(const std::exception& error);

}  // namespace hearth
