#include "ui/markdown_view.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QClipboard>
#include <QLabel>
#include <QPushButton>
#include <QTest>

#include "ui/code_block.h"
#include "ui/prose_view.h"

namespace hearth::ui {
namespace {

const char* const kAnswer =
    "Here is **code**:\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n"
    "- one\n- two\n\nThe end.";

// Streamed a few characters at a time, the view ends up as if set at once, and each frame
// re-rendered only the block still open.
TEST(MarkdownView, StreamingEndsLikeSettingAtOnceAndRendersEachBlockFewTimes) {
    MarkdownView streamed(false);
    const QString answer = QString::fromUtf8(kAnswer);
    int frames = 0;
    for (qsizetype i = 0; i < answer.size(); i += 3) {
        streamed.append(answer.mid(i, 3));
        streamed.flush();  // one frame
        ++frames;
    }
    streamed.complete();
    MarkdownView whole(false);
    whole.set_text(answer);
    EXPECT_EQ(streamed.text(), answer);
    const auto labels = [](const MarkdownView& view) {
        QStringList texts;
        for (auto* prose : view.findChildren<ProseView*>()) texts << prose->markdown();
        return texts;
    };
    EXPECT_EQ(labels(streamed), labels(whole));
    auto* code = streamed.findChild<CodeBlock*>();
    ASSERT_NE(code, nullptr);
    EXPECT_EQ(code->language(), "rust");
    EXPECT_EQ(code->code(), "fn main() {\n    println!(\"hi\");\n}");
    // Without the open-block rule every frame would re-render every block so far.
    EXPECT_LT(streamed.renders(), frames + 8);
}

TEST(MarkdownView, TextArrivesAtMostOncePerFrame) {
    MarkdownView view(false);
    view.append("Hello");
    view.append(" world");
    EXPECT_EQ(view.text(), "");  // nothing applied between frames
    EXPECT_TRUE(QTest::qWaitFor([&] { return view.text() == "Hello world"; }, 1000));
    EXPECT_EQ(view.renders(), 1);
}

// An answer continued: its last paragraph opens again, so the words that follow finish it
// instead of starting a paragraph of their own.
TEST(MarkdownView, ReopenedTheNextWordsJoinTheLastParagraph) {
    MarkdownView view(false);
    view.set_text("First paragraph.\n\nShe went to the");
    view.reopen();
    view.append(" park and played.");
    view.finish_streaming();
    QStringList texts;
    for (auto* prose : view.findChildren<ProseView*>()) texts << prose->markdown();
    EXPECT_EQ(texts, (QStringList{"First paragraph.", "She went to the park and played."}));
    EXPECT_EQ(view.text(), "First paragraph.\n\nShe went to the park and played.");
}

TEST(MarkdownView, CodeBlocksHaveALanguageLabelAndACopyButton) {
    MarkdownView view(true);
    view.set_text("```python\nprint(1)\n```");
    auto* code = view.findChild<CodeBlock*>();
    ASSERT_NE(code, nullptr);
    EXPECT_EQ(code->findChild<QLabel*>("codeLanguage")->text(), "python");
    QTest::mouseClick(code->findChild<QPushButton*>("copyCode"), Qt::LeftButton);
    EXPECT_EQ(QApplication::clipboard()->text(), "print(1)");
}

}  // namespace
}  // namespace hearth::ui
