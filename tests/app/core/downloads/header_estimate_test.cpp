#include "app/core/downloads/header_estimate.h"

#include <gtest/gtest.h>

#include <set>

#include "app/core/model_catalog.h"
#include "engine/format/gguf_file.h"
#include "tests/support/download_waits.h"
#include "tests/support/hub_test_server.h"
#include "tests/support/shared_data.h"
#include "tests/support/split_model.h"
#include "tests/support/temp_files.h"

namespace hearth::downloads {
namespace {

constexpr const char* kRepository = "hearth-test/models";

HubFile listed(const test::HubTestFile& file) {
    return {QString::fromStdString(file.path), file.bytes.size(),
            QString::fromStdString(file.sha256), QString::fromStdString(file.git_oid)};
}

// The estimate before a download is the picker's estimate of the file on disk, from the header
// alone: the server sent only the header's bytes (in growing ranges), far fewer than the file.
TEST(HeaderEstimate, TheHeaderAloneGivesThePickersEstimateAndReadsFarLessThanTheFile) {
    const std::vector<std::string> names = {"synth-llama-256-Q4_K_M.gguf",
                                            "synth-qwen3-256-Q4_K_M.gguf"};
    std::vector<test::HubTestFile> files;
    for (const auto& name : names) files.push_back(test::hub_file(name, test::model_path(name)));
    test::HubTestServer server({{kRepository, files}});
    HubClient hub(HubSettings{QUrl(QString::fromStdString(server.url())), {}});
    for (const auto& file : files) {
        const long long sent_before = server.file_bytes_sent();
        // A small first read, so that the header takes more than one range.
        const auto estimate = test::wait_for<HeaderEstimate>([&](auto done) {
            estimate_from_header(hub, kRepository, listed(file), std::move(done), 4096);
        });
        ASSERT_TRUE(estimate && estimate->ok()) << estimate->error->text.toStdString();
        const auto on_disk = read_model_info(test::model_path(file.path));
        const ModelInfo& info = estimate->value.info;
        EXPECT_EQ(info.memory_bytes(1024), on_disk.memory_bytes(1024)) << file.path;
        EXPECT_EQ(info.weight_bytes, on_disk.weight_bytes) << file.path;
        EXPECT_EQ(info.quantization, on_disk.quantization) << file.path;
        EXPECT_EQ(info.parameters, on_disk.parameters) << file.path;
        const long long sent = server.file_bytes_sent() - sent_before;
        EXPECT_EQ(sent, estimate->value.bytes_read) << file.path;
        EXPECT_LT(sent * 4, file.bytes.size()) << file.path << " sent " << sent;
        std::cout << file.path << ": header read in " << sent << " of " << file.bytes.size()
                  << " bytes\n";
    }
    // Every file request asked for a range, each starting where the last ended.
    long long next = 0;
    for (const auto& request : server.requests()) {
        if (request.path.rfind("/cdn/", 0) != 0) continue;
        ASSERT_EQ(request.range.rfind("bytes=", 0), 0u) << request.range;
        const long long first = std::stoll(request.range.substr(6));
        if (first == 0) next = 0;
        EXPECT_EQ(first, next) << request.range;
        next = std::stoll(request.range.substr(request.range.find('-') + 1)) + 1;
    }
}

// A split model's estimate reads every part's header, each a few ranges, and equals what the
// picker shows for the parts once downloaded, for far fewer bytes than the parts hold.
TEST(HeaderEstimate, ASplitModelsEstimateReadsEveryPartsHeaderAndIsThePickers) {
    const test::TempDirectory folder;
    const auto paths =
        test::write_split_model(*GgufFile::open(test::model_path("synth-llama-256-Q4_K_M.gguf")),
                                folder.path() / "llama", 3);
    std::vector<test::HubTestFile> files;
    for (const auto& path : paths) files.push_back(test::hub_file(path.filename().string(), path));
    test::HubTestServer server({{kRepository, files}});
    HubClient hub(HubSettings{QUrl(QString::fromStdString(server.url())), {}});
    std::vector<HubFile> parts;
    long long part_bytes = 0;
    for (const auto& file : files) {
        parts.push_back(listed(file));
        part_bytes += file.bytes.size();
    }
    const auto estimate = test::wait_for<HeaderEstimate>(
        [&](auto done) { estimate_from_headers(hub, kRepository, parts, std::move(done), 4096); });
    ASSERT_TRUE(estimate && estimate->ok()) << estimate->error->text.toStdString();

    const auto entries = core::scan_models({folder.path()}, {});
    ASSERT_EQ(entries.size(), 1u);
    ASSERT_TRUE(entries[0].error.isEmpty()) << entries[0].error.toStdString();
    const ModelInfo& picker = entries[0].info;
    const ModelInfo& info = estimate->value.info;
    EXPECT_EQ(info.memory_bytes(1024), picker.memory_bytes(1024));
    EXPECT_EQ(info.file_bytes, picker.file_bytes);
    EXPECT_EQ(info.parameters, picker.parameters);

    const long long sent = server.file_bytes_sent();
    EXPECT_EQ(sent, estimate->value.bytes_read);
    EXPECT_LT(sent * 4, part_bytes) << "sent " << sent;
    std::cout << "split model: headers read in " << sent << " of " << part_bytes << " bytes\n";
    // Every part was asked for, by ranges only.
    std::set<std::string> asked;
    for (const auto& request : server.requests()) {
        if (request.path.rfind("/cdn/", 0) != 0) continue;
        EXPECT_EQ(request.range.rfind("bytes=", 0), 0u) << request.range;
        asked.insert(request.path);
    }
    EXPECT_EQ(asked.size(), 3u);
}

// A split model missing a part in the repository gets no estimate, and says why.
TEST(HeaderEstimate, ASplitModelMissingAPartSaysEveryPartIsNeeded) {
    const test::TempDirectory folder;
    const auto paths = test::write_split_model(
        *GgufFile::open(test::model_path("stories260K.gguf")), folder.path() / "stories", 3);
    const auto first = test::hub_file(paths[0].filename().string(), paths[0]);
    const auto third = test::hub_file(paths[2].filename().string(), paths[2]);
    test::HubTestServer server({{kRepository, {first, third}}});
    HubClient hub(HubSettings{QUrl(QString::fromStdString(server.url())), {}});
    const auto estimate = test::wait_for<HeaderEstimate>([&](auto done) {
        estimate_from_headers(hub, kRepository, {listed(first), listed(third)}, std::move(done));
    });
    ASSERT_TRUE(estimate && !estimate->ok());
    EXPECT_EQ(estimate->error->kind, HubErrorKind::Integrity);
    EXPECT_TRUE(estimate->error->text.contains("split into 3 parts, but the headers of 2"))
        << estimate->error->text.toStdString();
}

// A file Hearth cannot load says why before anything is downloaded.
TEST(HeaderEstimate, AFileThatIsNotGgufSaysSo) {
    const auto readme = test::hub_file("README.gguf", QByteArray(100000, 'x'));
    test::HubTestServer server({{kRepository, {readme}}});
    HubClient hub(HubSettings{QUrl(QString::fromStdString(server.url())), {}});
    const auto estimate = test::wait_for<HeaderEstimate>([&](auto done) {
        estimate_from_header(hub, kRepository, listed(readme), std::move(done));
    });
    ASSERT_TRUE(estimate && !estimate->ok());
    EXPECT_EQ(estimate->error->kind, HubErrorKind::Integrity);
    EXPECT_TRUE(estimate->error->text.contains("not a GGUF file"))
        << estimate->error->text.toStdString();
}

// Whether the model fits is the needed memory against MemAvailable.
TEST(HeaderEstimate, TheFitComparesWithFreeMemoryAtTheChosenContext) {
    const auto info = read_model_info(test::model_path("stories260K.gguf"));
    const auto fit = memory_fit(info, 300);
    EXPECT_EQ(fit.context, 300);
    EXPECT_EQ(fit.needed, info.memory_bytes(300));
    ASSERT_TRUE(fit.available);  // Linux has /proc/meminfo
    EXPECT_TRUE(fit.fits());
    MemoryFit too_big = fit;
    too_big.needed = *fit.available + 1;
    EXPECT_FALSE(too_big.fits());
}

}  // namespace
}  // namespace hearth::downloads
