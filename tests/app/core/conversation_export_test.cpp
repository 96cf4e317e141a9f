#include "app/core/conversation_export.h"

#include <gtest/gtest.h>

#include "app/core/history_json.h"

namespace hearth::core {
namespace {

const QString kMarkdown = QStringLiteral("Markdown (*.md)");
const QString kJson = QStringLiteral("JSON (*.json)");

// The filter chosen names the format; a name typed without an extension gets the filter's.
TEST(ConversationExport, TheChosenFilterNamesTheFormatAndItsExtension) {
    EXPECT_EQ(export_filters(), kMarkdown + ";;" + kJson);
    const auto markdown = export_target("/tmp/chat", kMarkdown);
    EXPECT_EQ(markdown.path, "/tmp/chat.md");
    EXPECT_EQ(markdown.format, ExportFormat::Markdown);
    const auto json = export_target("/tmp/chat", kJson);
    EXPECT_EQ(json.path, "/tmp/chat.json");
    EXPECT_EQ(json.format, ExportFormat::Json);
    // An extension the user typed stays; the filter still names the format.
    const auto typed = export_target("/tmp/notes.txt", kMarkdown);
    EXPECT_EQ(typed.path, "/tmp/notes.txt");
    EXPECT_EQ(typed.format, ExportFormat::Markdown);
    EXPECT_EQ(export_target("/tmp/chat.md", kMarkdown).path, "/tmp/chat.md");
}

// Without a dialog (the tour, scripts), the name's extension decides.
TEST(ConversationExport, WithoutAFilterTheExtensionDecides) {
    EXPECT_EQ(export_target("/tmp/chat.MD", {}).format, ExportFormat::Markdown);
    EXPECT_EQ(export_target("/tmp/chat.json", {}).format, ExportFormat::Json);
    EXPECT_EQ(export_target("/tmp/chat", {}).path, "/tmp/chat");
}

TEST(ConversationExport, WritesEitherFormat) {
    Conversation conversation(1, QStringLiteral("A story"));
    conversation.add(conversation.add(-1, "user", "Where did the dog go?"), "assistant",
                     "To the river.");
    EXPECT_EQ(export_bytes(conversation, ExportFormat::Json), conversation_to_json(conversation));
    EXPECT_EQ(export_bytes(conversation, ExportFormat::Markdown),
              conversation_to_markdown(conversation).toUtf8());
    EXPECT_NE(export_bytes(conversation, ExportFormat::Markdown),
              export_bytes(conversation, ExportFormat::Json));
}

}  // namespace
}  // namespace hearth::core
