// hearth (app/main.cpp) as a user starts it from a terminal: a real process.
#include <gtest/gtest.h>

#include <QProcess>

#include "tests/support/build_version.h"

namespace hearth {
namespace {

struct AppResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

AppResult run_app(const QStringList& arguments, const QProcessEnvironment& environment) {
    QProcess app;
    app.setProcessEnvironment(environment);
    app.start(QStringLiteral(HEARTH_APP_PATH), arguments);
    EXPECT_TRUE(app.waitForFinished(60000));
    return {app.exitStatus() == QProcess::NormalExit ? app.exitCode() : -1,
            app.readAllStandardOutput().toStdString(), app.readAllStandardError().toStdString()};
}

TEST(Main, VersionNamesTheVersionAndTheCommitWithoutADisplay) {
    // No display and no offscreen platform: a QApplication would abort here, so this passes
    // only when --version is answered before the window's platform is needed.
    auto environment = QProcessEnvironment::systemEnvironment();
    for (const auto* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) {
        environment.remove(QString::fromLatin1(name));
    }
    const auto result = run_app({QStringLiteral("--version")}, environment);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    test::expect_version_line(result.out, "hearth");
}

TEST(Main, HelpListsTheVersionOption) {
    auto environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    const auto result = run_app({QStringLiteral("--help")}, environment);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("--version"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("--screenshots <DIR>"), std::string::npos) << result.out;
}

}  // namespace
}  // namespace hearth
