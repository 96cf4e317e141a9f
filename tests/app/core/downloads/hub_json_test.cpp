#include "app/core/downloads/hub_json.h"

#include <gtest/gtest.h>

#include <QJsonDocument>

#include "tests/support/hub_answers.h"

namespace hearth::downloads {
namespace {

const QUrl kTree(
    QStringLiteral("https://huggingface.co/api/models/owner/name/tree/main"
                   "?recursive=true"));

QByteArray json(const QJsonArray& array) {
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

// The tree as the hub test server sends it: folders left out, each file's size and LFS sha256.
TEST(HubJson, TreeListsTheFilesWithTheirSizesAndSha256) {
    const test::HubTestRepository repository{
        "owner/name",
        {test::hub_file("README.md", QByteArray("# a model")),
         test::hub_file("Q8_0/model-00001-of-00002.gguf", QByteArray("GGUF one"))}};
    const auto tree = parse_tree(json(test::hub_tree_entries(repository)));
    ASSERT_TRUE(tree.ok()) << tree.error->text.toStdString();
    ASSERT_EQ(tree.value.size(), 2u);
    EXPECT_EQ(tree.value[1].path, "Q8_0/model-00001-of-00002.gguf");
    EXPECT_EQ(tree.value[1].size, 8);
    EXPECT_EQ(tree.value[1].sha256.toStdString(), repository.files[1].sha256);
    EXPECT_EQ(tree.value[1].git_oid.toStdString(), repository.files[1].git_oid);
}

TEST(HubJson, NextPageIsReadFromTheLinkHeaderAbsoluteOrRelative) {
    const std::string absolute =
        test::hub_tree_link("https://huggingface.co/api/models/owner/name/tree/main", 1000);
    EXPECT_EQ(parse_next_page(kTree, QByteArray::fromStdString(absolute)),
              QUrl("https://huggingface.co/api/models/owner/name/tree/main"
                   "?recursive=true&cursor=1000"));
    EXPECT_EQ(parse_next_page(kTree, "</api/models/owner/name/tree/main?cursor=7>; rel=next"),
              QUrl("https://huggingface.co/api/models/owner/name/tree/main?cursor=7"));
    EXPECT_FALSE(parse_next_page(kTree, "").isValid());
    EXPECT_FALSE(parse_next_page(kTree, "<https://huggingface.co/x>; rel=\"prev\"").isValid());
}

// A Link header could send the next request, with the access token in it, to any server; pages
// are followed on the server that was asked only (hub_json_fuzz checks it of every header).
TEST(HubJson, NextPageOnAnotherServerIsNotFollowed) {
    EXPECT_FALSE(
        parse_next_page(kTree, "<https://elsewhere.example/steal>; rel=\"next\"").isValid());
    EXPECT_FALSE(
        parse_next_page(kTree, "<http://huggingface.co/api/models?cursor=1>; rel=next").isValid());
    EXPECT_FALSE(parse_next_page(kTree, "<https://huggingface.co:8443/api/x>; rel=next").isValid());
    EXPECT_FALSE(parse_next_page(kTree, "<//elsewhere.example/api/x>; rel=next").isValid());
}

// Found by hub_json_fuzz: two parts of one split model listed near 2^63 bytes each overflowed
// the choice's total size (signed overflow, a negative size in the dialog). Sizes past
// kMaxHubFileBytes make the tree unreadable, naming the limit.
TEST(HubJson, AFileLargerThanTheLimitMakesTheTreeUnreadable) {
    const auto tree = parse_tree(R"([{"type":"file","path":"a-00001-of-00002.gguf","size":)"
                                 R"(9000000000000000000},{"type":"file","path":)"
                                 R"("a-00002-of-00002.gguf","size":9000000000000000000}])");
    ASSERT_FALSE(tree.ok());
    EXPECT_EQ(tree.error->kind, HubErrorKind::Protocol);
    EXPECT_TRUE(tree.error->text.contains("kMaxHubFileBytes")) << tree.error->text.toStdString();
    EXPECT_TRUE(tree.error->text.contains("a-00001-of-00002.gguf"));
    // The largest allowed size still reads, LFS size included.
    const auto largest = parse_tree(R"([{"type":"file","path":"big.gguf","size":135,"lfs":)"
                                    R"({"oid":"ab","size":1099511627776}}])");
    ASSERT_TRUE(largest.ok());
    EXPECT_EQ(largest.value.front().size, kMaxHubFileBytes);
}

}  // namespace
}  // namespace hearth::downloads
