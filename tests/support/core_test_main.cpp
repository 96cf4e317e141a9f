// main() for the core's tests: a QCoreApplication (the SQLite driver is a plugin, and loading
// one needs an application instance), and no QtGui or QtWidgets to link.
#include <gtest/gtest.h>

#include <QCoreApplication>

int main(int argc, char** argv) {
    QCoreApplication application(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("hearth-test"));
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
