// What `--version` must print for the tree the tests were built from.
// Tests that link this must define HEARTH_SOURCE_DIR and HEARTH_PROJECT_VERSION.
#pragma once

#include <string>

namespace hearth::test {

// `git rev-parse --short HEAD` of the source tree, or "unknown" where it is not a checkout.
std::string tree_commit();
// Fails the test unless `output` is exactly "PROGRAM VERSION (commit HASH)" plus a newline, with
// HASH the tree's commit ("-dirty" after it when the build had uncommitted changes).
void expect_version_line(const std::string& output, const std::string& program);

}  // namespace hearth::test
