// What an answer looks like on screen: numbered lists, quotes, long words and code in a narrow
// window, the figures under each answer and the Continue offer of an answer cut off by the token
// limit. Asserted on what the view shows (the text a reader sees, where it sits, its pixels),
// not on the Markdown it was given.
#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextEdit>
#include <QTextList>

#include <algorithm>

#include "ui/chat_view.h"
#include "ui/main_window.h"
#include "ui/markdown_view.h"
#include "ui/message_widget.h"
#include "ui/theme.h"

namespace hearth::ui {
namespace {

// A document's text as a reader sees it: each list item led by its number or bullet.
QString document_text(const QTextDocument& document) {
    QStringList lines;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        QString line = block.text();
        if (const QTextList* list = block.textList()) {
            const bool numbered = list->format().style() <= QTextListFormat::ListDecimal;
            line = (numbered ? list->itemText(block) : QStringLiteral("•")) + ' ' + line;
        }
        lines << line;
    }
    return lines.join('\n');
}

// The text one widget shows (labels render their Markdown or rich text as Qt lays it out).
QString widget_text(const QWidget& widget) {
    if (const auto* label = qobject_cast<const QLabel*>(&widget)) {
        QTextDocument document;
        if (label->textFormat() == Qt::MarkdownText) {
            document.setMarkdown(label->text());
        } else if (label->textFormat() == Qt::RichText ||
                   (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text()))) {
            document.setHtml(label->text());
        } else {
            document.setPlainText(label->text());
        }
        return document_text(document);
    }
    if (const auto* edit = qobject_cast<const QTextEdit*>(&widget))
        return document_text(*edit->document());
    if (const auto* edit = qobject_cast<const QPlainTextEdit*>(&widget)) return edit->toPlainText();
    return {};
}

bool shows_text(const QWidget& widget) {
    return qobject_cast<const QLabel*>(&widget) || qobject_cast<const QTextEdit*>(&widget) ||
           qobject_cast<const QPlainTextEdit*>(&widget);
}

struct ShownText {
    const QWidget* widget;
    QRect rect;  // in the root's coordinates
    QString text;
};

// Every visible text widget under `root`, top to bottom, then left to right.
std::vector<ShownText> shown_texts(const QWidget& root) {
    std::vector<ShownText> shown;
    for (const auto* widget : root.findChildren<QWidget*>()) {
        if (!shows_text(*widget) || !widget->isVisibleTo(&root)) continue;
        shown.push_back({widget, QRect(widget->mapTo(&root, QPoint(0, 0)), widget->size()),
                         widget_text(*widget)});
    }
    std::sort(shown.begin(), shown.end(), [](const ShownText& a, const ShownText& b) {
        return std::pair(a.rect.top(), a.rect.left()) < std::pair(b.rect.top(), b.rect.left());
    });
    return shown;
}

// What `root` shows, line by line: texts side by side (a list item's number and its words) are
// one line.
QStringList shown_lines(const QWidget& root) {
    QStringList lines;
    int row_top = -1;
    for (const auto& item : shown_texts(root)) {
        if (item.text.isEmpty()) continue;
        if (item.rect.top() == row_top && !lines.isEmpty() && !item.text.contains('\n')) {
            lines.back() += ' ' + item.text;
            continue;
        }
        row_top = item.rect.top();
        lines << item.text.split('\n', Qt::SkipEmptyParts);
    }
    return lines;
}

const ShownText* find_shown(const std::vector<ShownText>& shown, const QString& words) {
    for (const auto& item : shown) {
        if (item.text.contains(words)) return &item;
    }
    return nullptr;
}

void settle() {
    for (int i = 0; i < 6; ++i) {
        QApplication::processEvents();
        QTest::qWait(5);
    }
}

const char* const kLists =
    "Steps:\n\n1. Mix the flour\n2. Bake the bread\n3. Eat it\n\n"
    "Later steps:\n\n5. Wash up\n6. Sleep\n\n"
    "Lazy numbers:\n\n1. first\n1. second\n1. third\n\n"
    "- a bullet\n- another";

// Numbered lists count 1, 2, 3 (every item used to show "1."), a list that starts at 5 starts
// at 5, and items all numbered "1." count up as Markdown says they do; set at once or streamed.
TEST(AnswerView, NumberedListsCountFromTheirFirstNumber) {
    for (const bool streamed : {false, true}) {
        MarkdownView view(false);
        view.resize(500, 600);
        view.show();
        const QString answer = QString::fromUtf8(kLists);
        if (streamed) {
            for (qsizetype i = 0; i < answer.size(); i += 4) {
                view.append(answer.mid(i, 4));
                view.flush();
            }
            view.complete();
        } else {
            view.set_text(answer);
        }
        settle();
        const QStringList lines = shown_lines(view);
        for (const char* expected :
             {"1. Mix the flour", "2. Bake the bread", "3. Eat it", "5. Wash up", "6. Sleep",
              "1. first", "2. second", "3. third", "• a bullet", "• another"}) {
            EXPECT_TRUE(lines.contains(QString::fromUtf8(expected)))
                << expected << (streamed ? " (streamed)" : "") << " in\n"
                << lines.join('\n').toStdString();
        }
    }
}

// Whether a pixel is (close to) `colour`.
bool near(QRgb pixel, const QColor& colour, int tolerance) {
    return std::abs(qRed(pixel) - colour.red()) <= tolerance &&
           std::abs(qGreen(pixel) - colour.green()) <= tolerance &&
           std::abs(qBlue(pixel) - colour.blue()) <= tolerance;
}

// The leftmost column in `rows` holding text (pixels near the text colour).
int first_ink_column(const QImage& image, const QRect& rows, const QColor& text) {
    for (int x = 0; x < image.width(); ++x) {
        for (int y = rows.top(); y <= rows.bottom() && y < image.height(); ++y) {
            if (near(image.pixel(x, y), text, 90)) return x;
        }
    }
    return image.width();
}

// Whether some column left of `before` differs from the background in at least 90% of `rows`:
// a bar beside the quote, or a tint behind it.
bool has_bar_or_tint(const QImage& image, const QRect& rows, int before, const QColor& background) {
    for (int x = 0; x < before; ++x) {
        int marked = 0;
        for (int y = rows.top(); y <= rows.bottom(); ++y)
            marked += near(image.pixel(x, y), background, 6) ? 0 : 1;
        if (marked * 10 >= rows.height() * 9) return true;
    }
    return false;
}

// A block quote is set apart as a quote: its words indented from the prose around it, with a
// bar or a tint beside them, in the light theme and in the dark one.
TEST(AnswerView, BlockQuotesAreIndentedWithABarInBothThemes) {
    for (const bool dark : {false, true}) {
        apply_theme(dark ? core::Theme::Dark : core::Theme::Light, 10);
        MarkdownView view(dark);
        view.resize(500, 300);
        view.show();
        view.set_text(
            "Plain words before the quote.\n\n> A quoted line the view sets apart.\n"
            "> And a second quoted line.\n\nPlain words after it.");
        settle();
        const QImage image = view.grab().toImage();
        const auto shown = shown_texts(view);
        const ShownText* quote = find_shown(shown, "A quoted line");
        const ShownText* prose = find_shown(shown, "Plain words before");
        ASSERT_NE(quote, nullptr);
        ASSERT_NE(prose, nullptr);
        const QColor text = view.palette().color(QPalette::WindowText);
        const QColor background = view.palette().color(QPalette::Window);
        const int quote_ink = first_ink_column(image, quote->rect, text);
        const int prose_ink = first_ink_column(image, prose->rect, text);
        EXPECT_GT(quote_ink, prose_ink + 8) << (dark ? "dark" : "light");
        EXPECT_TRUE(has_bar_or_tint(image, quote->rect, quote_ink, background))
            << (dark ? "dark" : "light") << ": nothing marks the quote";
        EXPECT_FALSE(has_bar_or_tint(image, prose->rect, prose_ink, background))
            << "the prose is marked like a quote";
    }
    apply_theme(core::Theme::Light, 10);
}

// `view` shown at `width`, showing `conversation` (no answer streaming), laid out.
void show(ChatView& view, int width, const core::Conversation& conversation) {
    view.resize(width, 600);
    view.show();
    view.show_conversation(conversation, -1);
    settle();
}

core::Conversation asked_and_answered(const QString& question, const QString& answer,
                                      std::optional<GenerationStats> stats = std::nullopt) {
    core::Conversation conversation(1, question);
    const int asked = conversation.add(-1, QStringLiteral("user"), question);
    const int answered = conversation.add(asked, QStringLiteral("assistant"), answer);
    if (stats) {
        core::GenerationRecord record;
        record.stats = *stats;
        conversation.find(answered)->generation = record;
    }
    return conversation;
}

const QString kLongWord = QString(260, 'w');
const QString kLongUrl = QStringLiteral("https://example.com/") + QString(40, 'p') +
                         QStringLiteral("/") + QString(80, 'q') + QStringLiteral("?query=") +
                         QString(60, 'v');
const QString kLongCode = QStringLiteral("int x = ") + QString(220, '1') + QStringLiteral(";");

QString long_answer() {
    return QStringLiteral("A long word: %1\n\nA link: %2\n\n```cpp\n%3\nint y = 2;\n```\n\nDone.")
        .arg(kLongWord, kLongUrl, kLongCode);
}

// Every visible button under `root` lies inside `area` (both in `root`'s coordinates).
void expect_buttons_inside(const QWidget& root, const QWidget& area) {
    const QRect visible(QPoint(0, 0), area.size());
    int buttons = 0;
    for (const auto* button : root.findChildren<QPushButton*>()) {
        if (!button->isVisibleTo(&root)) continue;
        ++buttons;
        const QRect rect(button->mapTo(&area, QPoint(0, 0)), button->size());
        EXPECT_GE(rect.left(), visible.left()) << button->objectName().toStdString();
        EXPECT_LE(rect.right(), visible.right()) << button->objectName().toStdString();
    }
    EXPECT_GT(buttons, 2);
}

// Text wider than the view wraps (a long word or URL) or scrolls inside its own block (code):
// the messages never grow wider than the view, so the message buttons stay on screen.
void expect_fits(ChatView& view) {
    EXPECT_EQ(view.horizontalScrollBar()->maximum(), 0);
    EXPECT_LE(view.widget()->width(), view.viewport()->width());
    expect_buttons_inside(*view.widget(), *view.viewport());
    const auto shown = shown_texts(*view.widget());
    for (const QString& words : {kLongWord, kLongUrl}) {
        const ShownText* item = find_shown(shown, words);
        ASSERT_NE(item, nullptr) << "not shown whole: " << words.left(30).toStdString();
        EXPECT_LE(item->rect.right(), view.viewport()->width());
    }
    const ShownText* code = find_shown(shown, kLongCode);
    ASSERT_NE(code, nullptr);
    const auto* editor = qobject_cast<const QPlainTextEdit*>(code->widget);
    ASSERT_NE(editor, nullptr);
    EXPECT_LE(code->rect.right(), view.viewport()->width());
    EXPECT_GT(editor->horizontalScrollBar()->maximum(), 0) << "the code line does not scroll";
    // Both code lines are on screen above the block's own scroll bar.
    const int lines = editor->document()->blockCount();
    EXPECT_GE(editor->viewport()->height(), lines * editor->fontMetrics().lineSpacing());
}

TEST(AnswerView, LongWordsUrlsAndCodeStayInsideANarrowMessage) {
    ChatView view;
    show(view, 420, asked_and_answered(QStringLiteral("Show me long things."), long_answer()));
    expect_fits(view);
}

// The same answer in the whole window at 800×600.
TEST(AnswerView, TheMessageButtonsStayOnScreenIn800By600) {
    MainWindow window;
    window.resize(800, 600);
    window.show();
    auto* conversation = window.current_conversation();
    const int asked = conversation->add(-1, QStringLiteral("user"), kLongUrl);
    conversation->add(asked, QStringLiteral("assistant"), long_answer());
    window.apply_conversation_settings(conversation->settings());  // shows it
    settle();
    EXPECT_LE(window.width(), 800);
    expect_fits(*window.chat_view());
}

GenerationStats answer_stats(StopReason reason) {
    GenerationStats stats;
    stats.prompt_tokens = 113;
    stats.cached_tokens = 100;
    stats.prefilled_tokens = 13;
    stats.time_to_first_token_ns = 42'000'000;
    stats.generated_tokens = 61;
    stats.decode_ns = 2'000'000'000;  // 60 tokens after the first in 2 s: 30 tok/s
    stats.stop_reason = reason;
    return stats;
}

QLabel* figures_of(const MessageWidget& widget) {
    auto* label = widget.findChild<QLabel*>(QStringLiteral("answerFigures"));
    return label != nullptr && label->isVisibleTo(&widget) ? label : nullptr;
}

// Under each answer: its tokens, speed, time to first token, the prompt reused from the cache
// and why it stopped; nothing under a question.
TEST(AnswerView, FiguresStandUnderEachAnswer) {
    const auto conversation =
        asked_and_answered(QStringLiteral("Once upon a time"), QStringLiteral("there was a cat."),
                           answer_stats(StopReason::EndOfGeneration));
    ChatView view;
    show(view, 600, conversation);
    const auto thread = conversation.thread();
    EXPECT_EQ(figures_of(*view.message_widget(thread[0])), nullptr);
    const MessageWidget* answer = view.message_widget(thread[1]);
    const QLabel* figures = figures_of(*answer);
    ASSERT_NE(figures, nullptr);
    const QString text = figures->text();
    for (const char* fact : {"61 tokens", "30.0 tok/s", "first token in 42 ms",
                             "100 of 113 prompt tokens reused", "ended by the model"}) {
        EXPECT_TRUE(text.contains(QString::fromUtf8(fact)))
            << fact << " not in " << text.toStdString();
    }
    // Under the answer's words.
    const auto* words = answer->view();
    EXPECT_GE(figures->mapTo(answer, QPoint(0, 0)).y(),
              words->mapTo(answer, QPoint(0, words->height())).y());
    EXPECT_LE(figures->mapTo(view.viewport(), QPoint(figures->width(), 0)).x(),
              view.viewport()->width());
}

QPushButton* continue_button(const MessageWidget& widget) {
    auto* button = widget.findChild<QPushButton*>(QStringLiteral("continueAnswer"));
    return button != nullptr && button->isVisibleTo(&widget) ? button : nullptr;
}

// An answer the token limit cut off says so, and offers Continue (which asks for more of the
// same answer); an answer the model ended, a streaming one or an earlier one does not.
TEST(AnswerView, AnAnswerCutOffByTheTokenLimitOffersContinue) {
    auto conversation =
        asked_and_answered(QStringLiteral("Once upon a time"), QStringLiteral("there was a"),
                           answer_stats(StopReason::MaxTokens));
    ChatView view;
    QSignalSpy continued(&view, SIGNAL(continueRequested(int)));
    show(view, 600, conversation);
    const int answer = conversation.thread().back();
    const QLabel* figures = figures_of(*view.message_widget(answer));
    ASSERT_NE(figures, nullptr);
    EXPECT_TRUE(figures->text().contains(QStringLiteral("cut off at the token limit")))
        << figures->text().toStdString();
    QPushButton* button = continue_button(*view.message_widget(answer));
    ASSERT_NE(button, nullptr);
    EXPECT_FALSE(button->accessibleName().isEmpty());
    QTest::mouseClick(button, Qt::LeftButton);
    ASSERT_TRUE(continued.isValid());
    ASSERT_EQ(continued.size(), 1);
    EXPECT_EQ(continued[0][0].toInt(), answer);

    // While it streams (being continued) there is nothing to continue yet.
    view.show_conversation(conversation, answer);
    settle();
    EXPECT_EQ(continue_button(*view.message_widget(answer)), nullptr);

    // A later question makes it an earlier answer: Continue would no longer extend the end.
    const int later = conversation.add(answer, QStringLiteral("user"), QStringLiteral("And?"));
    view.show_conversation(conversation, -1);
    settle();
    EXPECT_EQ(continue_button(*view.message_widget(answer)), nullptr);
    conversation.add(later, QStringLiteral("assistant"), QStringLiteral("The end."));
    conversation.find(conversation.thread().back())->generation =
        core::GenerationRecord{.stats = answer_stats(StopReason::EndOfGeneration)};
    view.show_conversation(conversation, -1);
    settle();
    EXPECT_EQ(continue_button(*view.message_widget(conversation.thread().back())), nullptr);
}

}  // namespace
}  // namespace hearth::ui
