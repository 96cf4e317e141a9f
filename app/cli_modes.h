// hearth-cli's modes that need no forward pass: tokenizing, detokenizing, rendering templates.
#pragma once

#include <filesystem>
#include <iosfwd>

#include "app/cli_options.h"

namespace hearth {

std::filesystem::path model_or_bundled(const CliOptions& options);
// Each returns the process exit code; errors the user caused are thrown as exceptions.
int run_tokenize(const CliOptions& options, std::istream& in, std::ostream& out);
int run_detokenize(const CliOptions& options, std::istream& in, std::ostream& out);
int run_render_template(const CliOptions& options, std::ostream& out);

}  // namespace hearth
