// main() for tests that create widgets: a QApplication on the offscreen platform (ctest's test
// discovery starts the binary without the test environment, and with no display a widget
// application aborts).
#include <gtest/gtest.h>

#include <QApplication>

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication application(argc, argv);
    QApplication::setApplicationName(QStringLiteral("hearth-test"));
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
