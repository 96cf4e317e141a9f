// hearth-cli run as a user runs it: a real process, its exit code and both output streams.
// Tests that link this must define HEARTH_CLI_PATH for it (see tests/CMakeLists.txt).
#pragma once

#include <QStringList>

#include <string>

namespace hearth::test {

struct CliResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

CliResult run_cli(const QStringList& arguments, const std::string& input = {});

}  // namespace hearth::test
