#include "tests/support/build_version.h"

#include <gtest/gtest.h>

#include <QProcess>

namespace hearth::test {

std::string tree_commit() {
    QProcess git;
    git.start(QStringLiteral("git"),
              {QStringLiteral("-C"), QStringLiteral(HEARTH_SOURCE_DIR), QStringLiteral("rev-parse"),
               QStringLiteral("--short"), QStringLiteral("HEAD")});
    if (!git.waitForFinished(30000) || git.exitStatus() != QProcess::NormalExit ||
        git.exitCode() != 0) {
        return "unknown";
    }
    return git.readAllStandardOutput().trimmed().toStdString();
}

void expect_version_line(const std::string& output, const std::string& program) {
    const std::string line = program + " " + HEARTH_PROJECT_VERSION + " (commit " + tree_commit();
    EXPECT_TRUE(output == line + ")\n" || output == line + "-dirty)\n")
        << "printed: " << output << "expected: " << line << ")";
}

}  // namespace hearth::test
