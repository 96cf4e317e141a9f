// hearth-cli --download: a model from Hugging Face from a terminal, the same library and the
// same checks as the window's Get models dialog, for scripts and tests.
#pragma once

#include <iosfwd>

#include "app/cli_options.h"

namespace hearth {

// Prints the memory estimate and progress to `log` and each downloaded file's path to `out`.
// Returns the exit status: 0 downloaded (or already there), 1 failed, 2 the reference needs a
// file chosen among several.
int run_download(const CliOptions& options, std::ostream& out, std::ostream& log);

}  // namespace hearth
