// Picks a backend by name, for the command line and the app's settings.
#pragma once

#include <memory>
#include <string>

#include "engine/backend.h"

namespace hearth {

// A sensible default context for a model: its trained length, capped where the KV cache would
// grow beyond what a desktop should spend without being asked.
inline constexpr int kDefaultContextCap = 4096;
int default_context_length(const ModelConfig& config);

// "cpu" (the fast path) or "reference" (the float32 oracle). Throws std::invalid_argument for
// anything else, naming the choices.
std::unique_ptr<Backend> make_backend(const std::string& name, const Model& model, int threads);

}  // namespace hearth
