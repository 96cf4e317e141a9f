// hearth-cli --remote: the same chat as the window's remote engines, for scripts and tests.
#pragma once

#include <iosfwd>

#include "app/cli_options.h"

namespace hearth {

// Streams the answer to `out` and reasoning and figures to `log`; --list-models prints the
// server's model ids. Throws remote::RemoteError (after writing what arrived).
int run_remote(const CliOptions& options, std::ostream& out, std::ostream& log);

}  // namespace hearth
