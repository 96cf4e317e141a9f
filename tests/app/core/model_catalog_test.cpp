// The model picker's data, from the real shared files: every GGUF file is listed with what its
// metadata says, and files that cannot be used say why.
#include "app/core/model_catalog.h"

#include <gtest/gtest.h>

#include "engine/compute/cpu_backend.h"
#include "engine/format/split_name.h"
#include "tests/support/shared_data.h"
#include "tests/support/split_model.h"
#include "tests/support/temp_files.h"
#include "tests/support/unsupported_files.h"

namespace hearth::core {
namespace {

TEST(ModelCatalog, ListsTheSharedModelsWithTheirMetadata) {
    const auto folder = test::shared_dir() / "models";
    const auto entries = scan_models({folder}, {});
    size_t files = 0;
    for (const auto& item : std::filesystem::directory_iterator(folder))
        files += item.path().extension() == ".gguf";
    ASSERT_EQ(entries.size(), files);
    for (const auto& entry : entries) {
        if (const auto* unsupported = test::find_unsupported(entry.info.path.filename().string())) {
            test::expect_refused(*unsupported, [&] {
                if (!entry.error.isEmpty()) throw std::runtime_error(entry.error.toStdString());
            });
            continue;
        }
        EXPECT_TRUE(entry.error.isEmpty()) << entry.error.toStdString();
        const auto name = entry.info.path.stem().string();
        // Compare with the independent implementation's view of the same file.
        const auto fixture = test::load_json(test::fixture_path("models/" + name + ".json"));
        const auto hparams = fixture["hparams"].toObject();
        EXPECT_EQ(entry.info.context_length, hparams["n_ctx_train"].toInt()) << name;
        const auto metadata = fixture["model"].toObject()["metadata"].toObject();
        EXPECT_EQ(QString::fromStdString(entry.info.architecture),
                  metadata["general.architecture"].toString())
            << name;
        EXPECT_EQ(entry.info.parameters,
                  static_cast<uint64_t>(hparams["model_n_params"].toDouble()))
            << name;
        EXPECT_EQ(entry.info.file_bytes, std::filesystem::file_size(entry.info.path));
        const auto model = Model::load(entry.info.path, {.prefault = false});
        EXPECT_EQ(entry.info.kv_bytes(1024), CpuBackend::kv_bytes(model->config(), 1024));
        EXPECT_GT(entry.info.memory_bytes(1024), entry.info.file_bytes);
        if (name.ends_with("Q4_K_M")) {
            EXPECT_EQ(entry.info.quantization, "Q4_K_M") << name;
        }
    }
}

TEST(ModelCatalog, BrokenFilesAreListedWithTheReason) {
    const test::TempDirectory directory;
    auto bytes = test::read_bytes(test::model_path("stories260K.gguf"));
    bytes.resize(1000);
    directory.write("cut.gguf", bytes);
    directory.write("notes.txt", bytes);
    const auto entries = scan_models({directory.path()}, test::model_path("stories260K.gguf"));
    ASSERT_EQ(entries.size(), 2u);  // the bundled model first, then the broken file
    EXPECT_TRUE(entries[0].error.isEmpty());
    EXPECT_TRUE(entries[1].error.contains("cut.gguf"));
}

// gguf-split's parts are one model: listed once, as the first part, and counted whole.
TEST(ModelCatalog, ASplitModelIsOneEntryWithAllItsParts) {
    const test::TempDirectory directory;
    const auto source = test::model_path("synth-llama-256-Q4_K_M.gguf");
    const auto parts =
        test::write_split_model(*GgufFile::open(source), directory.path() / "llama", 3);
    uintmax_t bytes = 0;
    for (const auto& part : parts) bytes += std::filesystem::file_size(part);

    const auto entries = scan_models({directory.path()}, {});
    ASSERT_EQ(entries.size(), 1u);
    const auto& entry = entries.front();
    EXPECT_TRUE(entry.error.isEmpty()) << entry.error.toStdString();
    EXPECT_EQ(entry.info.path, parts.front());
    EXPECT_EQ(entry.info.file_bytes, bytes);
    const auto whole = read_model_info(source);
    EXPECT_EQ(entry.info.parameters, whole.parameters);
    EXPECT_EQ(entry.info.weight_bytes, whole.weight_bytes - whole.file_bytes + bytes);
    EXPECT_EQ(entry.info.memory_bytes(1024), whole.memory_bytes(1024) - whole.file_bytes + bytes);
}

TEST(ModelCatalog, ASplitModelMissingAPartIsOneEntrySayingWhich) {
    const test::TempDirectory directory;
    const auto parts = test::write_split_model(
        *GgufFile::open(test::model_path("stories260K.gguf")), directory.path() / "stories", 3);
    std::filesystem::remove(parts[1]);

    const auto entries = scan_models({directory.path()}, {});
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].info.path, parts.front());
    EXPECT_TRUE(entries[0].error.contains("part 2 of 3 of this split model is missing"))
        << entries[0].error.toStdString();
    EXPECT_EQ(entries[0].info.file_bytes,
              std::filesystem::file_size(parts[0]) + std::filesystem::file_size(parts[2]));
}

// Loading a model gets the conversation's context where it sets one, otherwise the model's
// trained length up to the engine's cap: phi3 was trained on 16384 tokens, the story model on
// 2048, the synthetic qwen3 on 512.
TEST(ModelCatalog, TheChosenContextFollowsTheSettingOrTheModel) {
    const auto folder = test::shared_dir() / "models";
    const auto info = [&](const char* file) { return read_model_info(folder / file); };
    EXPECT_EQ(chosen_context(info("synth-phi3-256.gguf"), 0), 4096);
    EXPECT_EQ(chosen_context(info("stories260K.gguf"), 0), 2048);
    EXPECT_EQ(chosen_context(info("synth-qwen3-256.gguf"), 0), 512);
    EXPECT_EQ(chosen_context(info("synth-phi3-256.gguf"), 1000), 1000);
    EXPECT_EQ(chosen_context(info("synth-qwen3-256.gguf"), 8192), 8192);
}

}  // namespace
}  // namespace hearth::core
