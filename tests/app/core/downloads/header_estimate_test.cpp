#include "app/core/downloads/header_estimate.h"

#include <gtest/gtest.h>

#include "tests/support/download_waits.h"
#include "tests/support/hub_test_server.h"
#include "tests/support/shared_data.h"

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
