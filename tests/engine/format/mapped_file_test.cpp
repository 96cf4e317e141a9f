// A file loaded whole is a copy in transparent huge pages where the kernel offers them, and a
// memory map otherwise or when only its header is read: the same bytes either way, the same
// progress and cancellation, and (where offered) memory the kernel really backs with 2 MiB pages.
#include "engine/format/mapped_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/model/load_error.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

constexpr size_t kFileBytes = (size_t{9} << 20) + 12345;  // four huge pages and a bit

std::vector<std::byte> pattern(size_t count) {
    std::vector<std::byte> bytes(count);
    uint32_t state = 12345;
    for (auto& byte : bytes) {
        state = state * 1664525u + 1013904223u;
        byte = static_cast<std::byte>(state >> 24);
    }
    return bytes;
}

// The kibibytes of AnonHugePages that /proc/self/smaps gives the mapping holding `address`.
size_t huge_kibibytes_at(const void* address) {
    std::ifstream smaps("/proc/self/smaps");
    const auto target = reinterpret_cast<uintptr_t>(address);
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        uintptr_t start = 0, end = 0;
        char dash = 0;
        std::istringstream range(line);
        if (range >> std::hex >> start >> dash >> end && dash == '-') {
            inside = start <= target && target < end;
        } else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
            return std::stoul(line.substr(14));
        }
    }
    return 0;
}

class MappedFileTest : public testing::Test {
protected:
    test::TempDirectory directory;
    std::vector<std::byte> expected = pattern(kFileBytes);
    std::filesystem::path path = directory.write("weights.bin", expected);

    void expect_same_bytes(const MappedFile& file) const {
        ASSERT_EQ(file.size(), expected.size());
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), file.bytes().begin()));
    }
};

TEST_F(MappedFileTest, AFileLoadedWholeIsACopyInHugePagesWhereTheKernelOffersThem) {
    const MappedFile file(path);
    expect_same_bytes(file);
    // Debian's kernels offer them ("always" or "madvise"); a machine set to "never" cannot show
    // the copy, and says so here rather than passing without it.
    ASSERT_TRUE(transparent_huge_pages_offered())
        << "/sys/kernel/mm/transparent_hugepage/enabled is \"never\" on this machine";
    ASSERT_TRUE(file.copied_to_huge_pages());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(file.bytes().data()) % (size_t{2} << 20), 0u);
    // The kernel may fall short of huge pages under fragmentation, but not for all of them.
    EXPECT_GE(huge_kibibytes_at(file.bytes().data()), 2048u);
}

// The app's chat engine and its in-app server load the same model: one copy serves both, as
// one set of page-cache pages served two maps of it. A changed file is read again.
TEST_F(MappedFileTest, LoadsOfTheSameUnchangedFileShareOneCopy) {
    ASSERT_TRUE(transparent_huge_pages_offered())
        << "/sys/kernel/mm/transparent_hugepage/enabled is \"never\" on this machine";
    const MappedFile first(path);
    const MappedFile second(path);
    ASSERT_TRUE(first.copied_to_huge_pages());
    EXPECT_EQ(second.bytes().data(), first.bytes().data());
    expect_same_bytes(second);

    expected[1000] ^= std::byte{0xff};
    expected.resize(expected.size() + 1);
    directory.write("weights.bin", expected);
    const MappedFile changed(path);
    EXPECT_NE(changed.bytes().data(), first.bytes().data());
    EXPECT_TRUE(changed.copied_to_huge_pages());
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), changed.bytes().begin()));
    // The first copy outlives the file's change for those holding it.
    EXPECT_EQ(second.bytes()[1000], pattern(kFileBytes)[1000]);
}

// A rewrite (the CPU's weight layout) changes the loaded copy, never the file, and even with huge
// pages withheld; loads share a copy only when they ask for the same layout, and a load that maps
// the file keeps the file's own.
TEST_F(MappedFileTest, ARewriteChangesTheCopyAndCopiesAreSharedOnlyInOneLayout) {
    const auto invert = std::make_shared<const ByteRewrite>(
        ByteRewrite{"inverted", [](std::span<std::byte> bytes, const std::filesystem::path&) {
                        for (auto& byte : bytes) byte = ~byte;
                    }});
    const MappedFile inverted(path, {.huge_pages = false, .rewrite = invert});
    ASSERT_TRUE(inverted.copied_to_huge_pages());
    EXPECT_EQ(inverted.layout(), "inverted");
    ASSERT_EQ(inverted.size(), expected.size());
    for (const size_t at : {size_t{0}, size_t{4096}, kFileBytes - 1}) {
        EXPECT_EQ(inverted.bytes()[at], ~expected[at]) << "byte " << at;
    }
    const MappedFile again(path, {.rewrite = invert});
    EXPECT_EQ(again.bytes().data(), inverted.bytes().data());
    const MappedFile plain(path);
    EXPECT_NE(plain.bytes().data(), inverted.bytes().data());
    EXPECT_EQ(plain.layout(), "");
    expect_same_bytes(plain);
    const MappedFile header(path, {.prefault = false, .rewrite = invert});
    EXPECT_FALSE(header.copied_to_huge_pages());
    EXPECT_EQ(header.layout(), "");
    expect_same_bytes(header);
}

// A rewrite's error is the load's, and leaves no copy behind for the next load to find.
TEST_F(MappedFileTest, ARewriteThatFailsFailsTheLoad) {
    const auto refuse = std::make_shared<const ByteRewrite>(
        ByteRewrite{"refused", [](std::span<std::byte>, const std::filesystem::path& file) {
                        throw LoadError(file.string() + ": not in a layout this rewrite knows");
                    }});
    EXPECT_THROW(MappedFile(path, {.rewrite = refuse}), LoadError);
    EXPECT_THROW(MappedFile(path, {.rewrite = refuse}), LoadError);
}

// Where the kernel's setting is "never", or the file cannot be read, loads map the file.
TEST(TransparentHugePages, AreOfferedUnlessTheKernelsSettingIsNever) {
    EXPECT_TRUE(transparent_huge_pages_offered("[always] madvise never"));
    EXPECT_TRUE(transparent_huge_pages_offered("always [madvise] never"));
    EXPECT_FALSE(transparent_huge_pages_offered("always madvise [never]"));
    EXPECT_FALSE(transparent_huge_pages_offered(""));
}

TEST_F(MappedFileTest, WithoutHugePagesOrForItsHeaderAloneTheFileIsMapped) {
    const MappedFile mapped(path, {.huge_pages = false});
    EXPECT_FALSE(mapped.copied_to_huge_pages());
    expect_same_bytes(mapped);
    const MappedFile header(path, {.prefault = false});
    EXPECT_FALSE(header.copied_to_huge_pages());
    expect_same_bytes(header);
}

TEST_F(MappedFileTest, BothWaysReportProgressAndCanBeCancelled) {
    for (const bool huge_pages : {true, false}) {
        SCOPED_TRACE(huge_pages ? "huge pages" : "mapped");
        std::vector<size_t> reports;
        {
            const MappedFile file(path, {.progress =
                                             [&](size_t done, size_t total) {
                                                 EXPECT_EQ(total, kFileBytes);
                                                 reports.push_back(done);
                                                 return true;
                                             },
                                         .huge_pages = huge_pages});
            expect_same_bytes(file);
            // A load that finds the copy alive reads nothing and reports it whole at once.
            std::vector<size_t> shared;
            const MappedFile again(path, {.progress =
                                              [&](size_t done, size_t) {
                                                  shared.push_back(done);
                                                  return true;
                                              },
                                          .huge_pages = huge_pages});
            if (huge_pages) {
                EXPECT_EQ(shared, std::vector<size_t>{kFileBytes});
            }
        }
        EXPECT_GE(reports.size(), 50u);
        EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
        EXPECT_EQ(reports.back(), kFileBytes);

        int calls = 0;
        EXPECT_THROW(MappedFile(path, {.progress = [&](size_t, size_t) { return ++calls < 5; },
                                       .huge_pages = huge_pages}),
                     LoadCancelled);
        EXPECT_EQ(calls, 5);
    }
}

TEST_F(MappedFileTest, AnEmptyOrMissingFileIsALoadErrorNamingIt) {
    const auto empty = directory.write("empty.bin", {});
    for (const bool huge_pages : {true, false}) {
        try {
            MappedFile file(empty, {.huge_pages = huge_pages});
            FAIL() << "an empty file loaded";
        } catch (const LoadError& error) {
            EXPECT_NE(std::string(error.what()).find("empty.bin: the file is empty"),
                      std::string::npos);
        }
        EXPECT_THROW(MappedFile(directory.path() / "absent.bin", {.huge_pages = huge_pages}),
                     LoadError);
    }
}

}  // namespace
}  // namespace hearth
