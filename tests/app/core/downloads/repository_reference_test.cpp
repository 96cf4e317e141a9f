#include "app/core/downloads/repository_reference.h"

#include <gtest/gtest.h>

namespace hearth::downloads {
namespace {

TEST(RepositoryReference, IdsFilesAndAddressesAreRead) {
    const auto plain = parse_repository_reference(" bartowski/Llama-3.2-1B-Instruct-GGUF ");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->repository, "bartowski/Llama-3.2-1B-Instruct-GGUF");
    EXPECT_TRUE(plain->file.isEmpty());

    const auto with_file = parse_repository_reference("owner/name:sub/model-Q4_0.gguf");
    ASSERT_TRUE(with_file);
    EXPECT_EQ(with_file->repository, "owner/name");
    EXPECT_EQ(with_file->file, "sub/model-Q4_0.gguf");

    const auto page = parse_repository_reference("https://huggingface.co/owner/name");
    ASSERT_TRUE(page);
    EXPECT_EQ(page->repository, "owner/name");

    const auto blob =
        parse_repository_reference("https://huggingface.co/owner/name/blob/main/m-Q8_0.gguf");
    ASSERT_TRUE(blob);
    EXPECT_EQ(blob->file, "m-Q8_0.gguf");
    const auto resolve = parse_repository_reference(
        "https://huggingface.co/owner/name/resolve/main/dir/m.gguf?download=true");
    ASSERT_TRUE(resolve);
    EXPECT_EQ(resolve->file, "dir/m.gguf");
}

TEST(RepositoryReference, WhatIsNotARepositoryIsRefused) {
    for (const char* text : {"", "llama", "a/b/c", "owner/", "../etc:passwd", "owner/na me",
                             "owner/name:../../x.gguf", "https://huggingface.co/owner"}) {
        EXPECT_FALSE(parse_repository_reference(text)) << text;
    }
}

}  // namespace
}  // namespace hearth::downloads
