#include "tests/support/cli_process.h"

#include <gtest/gtest.h>

#include <QProcess>

namespace hearth::test {

CliResult run_cli(const QStringList& arguments, const std::string& input) {
    QProcess process;
    // Mesa's lavapipe leaks a little from code it unloads: the sanitizer build's leak check
    // would fail every run that opened a Vulkan device.
    auto environment = QProcessEnvironment::systemEnvironment();
    environment.insert("ASAN_OPTIONS", "detect_leaks=0");
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(HEARTH_CLI_PATH), arguments);
    process.write(input.data(), static_cast<qint64>(input.size()));
    process.closeWriteChannel();
    EXPECT_TRUE(process.waitForFinished(120000));
    return {process.exitCode(), process.readAllStandardOutput().toStdString(),
            process.readAllStandardError().toStdString()};
}

}  // namespace hearth::test
