// What `hearth --tour-status FILE` tells a driver outside the process, checked against the
// real window on the bundled model: the clicks the tour sends land on the controls it names.
#include "app/tour_status.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QMap>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTest>

#include "tests/support/chat_window_test.h"
#include "tests/support/temp_files.h"
#include "ui/message_widget.h"

namespace hearth::test {
namespace {

using TourStatusTest = ChatWindowTest;

QMap<QString, QString> read_status(const std::filesystem::path& path) {
    QFile file(QString::fromStdString(path.string()));
    QMap<QString, QString> values;
    if (!file.open(QIODevice::ReadOnly)) return values;
    for (const QString& line : QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts))
        values[line.section('=', 0, 0)] = line.section('=', 1);
    return values;
}

QString centre_of(const QWidget& widget) {
    const QPoint centre = widget.mapToGlobal(widget.rect().center());
    return QStringLiteral("%1 %2").arg(centre.x()).arg(centre.y());
}

TEST_F(TourStatusTest, ReportsTheModelTheAnswersAndWhereEachControlIs) {
    const TempDirectory directory;
    const auto path = directory.path() / "status";
    start_tour_status(m_window, *m_engine, QString::fromStdString(path.string()));
    ASSERT_TRUE(load(bundled()));
    const auto wait_status = [&](const QString& key, const QString& value) {
        return QTest::qWaitFor([&] { return read_status(path).value(key) == value; }, 5000);
    };
    EXPECT_TRUE(wait_status("model", "stories260K.gguf"));
    EXPECT_TRUE(wait_status("answers", "0"));
    auto settings = m_window.current_conversation()->settings();
    settings.max_tokens = 16;  // short answers: both fit on screen, buttons and all
    m_window.apply_conversation_settings(settings);
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    EXPECT_TRUE(wait_status("answers", "1"));
    type_and_send("The end");
    ASSERT_TRUE(wait_finished());
    EXPECT_TRUE(wait_status("answers", "2"));

    // Of the two answers' Regenerate buttons, the latest one's (the lowest on screen); the
    // window lays them out after the answer ends, and the next write has them.
    const auto* latest = widget_for(last_message())->findChild<QPushButton*>("regenerate");
    EXPECT_TRUE(QTest::qWaitFor(
        [&] { return read_status(path).value("at.regenerate") == centre_of(*latest); }, 5000))
        << read_status(path).value("at.regenerate").toStdString() << " is not "
        << centre_of(*latest).toStdString();
    const auto status = read_status(path);
    EXPECT_EQ(status.value("window"), "main");
    EXPECT_EQ(status.value("generating"), "0");
    EXPECT_EQ(status.value("winid"), QString::number(m_window.winId()));
    EXPECT_EQ(status.value("size"),
              QStringLiteral("%1x%2").arg(m_window.width()).arg(m_window.height()));
    EXPECT_EQ(status.value("at.prompt"), centre_of(*m_window.findChild<QPlainTextEdit*>("prompt")));
    EXPECT_EQ(status.value("rows.conversations"), "1");
    EXPECT_EQ(status.value("text.conversations.0"), m_window.current_conversation()->title());
}

}  // namespace
}  // namespace hearth::test
