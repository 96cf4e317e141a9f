#include "engine/model/model_info.h"

#include "engine/model/load_error.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>

#include <map>
#include <optional>

#include "tests/support/shared_data.h"
#include "tests/support/split_model.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

// The picker's memory estimate is exact: after running a step of every chunk size (the largest
// uses token panels or weight tiles, the small ones quantised activations, 64 tokens a mix of
// both where a format has no panel kernel), the backend holds exactly the scratch the estimate
// counted.
TEST(ModelInfo, TheWorkingMemoryEstimateIsWhatTheBackendAllocates) {
    for (const char* name :
         {"stories260K.gguf", "synth-llama-256-Q4_K_M.gguf", "synth-qwen2-256-Q8_0.gguf",
          "synth-gemma3-256-Q4_K_M.gguf", "synth-qwen3moe-256-Q4_K_M.gguf"}) {
        const CpuBackendOptions options{.threads = 2, .chunk_sizes = {1, 8, 64, 256}};
        const auto info = read_model_info(test::model_path(name), options);
        const auto model = Model::load(test::model_path(name));
        CpuBackend backend(*model, options);
        auto sequence = backend.create_sequence(512);
        std::vector<int32_t> prompt(256);
        for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int32_t>(1 + i % 200);
        backend.forward(prompt, *sequence, LogitRows::Last);
        backend.forward(std::span(prompt).first(64), *sequence, LogitRows::Last);
        backend.forward(std::span(prompt).first(8), *sequence, LogitRows::Last);
        const int32_t token = 5;
        backend.forward(std::span(&token, 1), *sequence, LogitRows::Last);
        EXPECT_EQ(backend.allocated_working_bytes(), info.working_bytes) << name;
        EXPECT_EQ(info.kv_bytes(512), CpuBackend::kv_bytes(model->config(), 512, options));
        EXPECT_GE(info.kv_bytes(512), sequence->memory_bytes()) << name;
        EXPECT_EQ(info.weight_bytes, model->file().file_size() + model->weights().owned_bytes());
    }
}

// The estimate follows the KV cache type: a Q8_0 cache's 34 bytes per 32 values, what its
// sequences hold; a model whose heads are not whole blocks (stories260K's 8 dimensions) keeps F16.
TEST(ModelInfo, TheKvEstimateFollowsTheCacheType) {
    const CpuBackendOptions q8_0{.threads = 1, .kv_cache = KvCacheType::Q8_0};
    const auto f16_info = read_model_info(test::model_path("synth-qwen2-256-Q8_0.gguf"));
    const auto info = read_model_info(test::model_path("synth-qwen2-256-Q8_0.gguf"), q8_0);
    EXPECT_EQ(info.kv_cache, KvCacheType::Q8_0);
    EXPECT_EQ(info.kv_bytes(512) * 64, f16_info.kv_bytes(512) * 34);
    EXPECT_EQ(info.memory_bytes(512) - info.kv_bytes(512),
              f16_info.memory_bytes(512) - f16_info.kv_bytes(512));
    const auto model = Model::load(test::model_path("synth-qwen2-256-Q8_0.gguf"));
    EXPECT_EQ(CpuBackend(*model, q8_0).create_sequence(512)->memory_bytes(), info.kv_bytes(512));
    const auto tiny = read_model_info(test::model_path("stories260K.gguf"), q8_0);
    EXPECT_EQ(tiny.kv_cache, KvCacheType::F16);
    EXPECT_EQ(tiny.kv_bytes(512),
              read_model_info(test::model_path("stories260K.gguf")).kv_bytes(512));
}

TEST(ModelInfo, ReadsMetadataWithoutLoadingAndNamesBadFiles) {
    const auto info = read_model_info(test::model_path("synth-qwen2-256-Q4_K_M.gguf"));
    EXPECT_EQ(info.architecture, "qwen2");
    EXPECT_EQ(info.quantization, "Q4_K_M");
    EXPECT_EQ(info.chat_family, "none");  // the shared files carry no chat template
    EXPECT_FALSE(info.has_chat_template);
    EXPECT_THROW(read_model_info("/nonexistent/model.gguf"), LoadError);
    EXPECT_EQ(parameter_count_text(1'100'048'384), "1.1B");
    EXPECT_EQ(parameter_count_text(134'515'008), "135M");
    EXPECT_EQ(parameter_count_text(292'800), "293K");
}

TensorType type_named(const std::string& name) {
    for (uint32_t id = 0; id < 64; ++id) {
        if (tensor_type_name(id) == name) return tensor_type_from_id(id).value();
    }
    throw std::invalid_argument("no type " + name);
}

// The mix is counted from the file's own tensor directory: the fixture lists every tensor's type
// and shape as llama.cpp wrote it.
TEST(ModelInfo, CountsEveryWeightTypesParametersAndBytes) {
    for (const char* stem : {"synth-llama-256-Q3_K_M", "synth-llama-256-IQ4_XS-mix",
                             "synth-llama-256-Q2_K", "synth-llama-256-Q4_K_M"}) {
        const auto json =
            test::load_json(test::fixture_path(std::string("models/") + stem + ".json"));
        std::map<std::string, uint64_t> expected;
        for (const auto& value : json["model"].toObject()["tensors"].toArray()) {
            const auto tensor = value.toObject();
            const std::string type = tensor["type"].toString().toStdString();
            uint64_t elements = 1;
            for (const auto& extent : tensor["ne"].toArray()) elements *= extent.toInteger();
            expected[type] += elements;
        }
        const auto info = read_model_info(test::model_path(std::string(stem) + ".gguf"));
        ASSERT_EQ(info.weight_types.size(), expected.size()) << stem;
        uint64_t parameters = 0;
        for (size_t i = 0; i < info.weight_types.size(); ++i) {
            const auto& share = info.weight_types[i];
            EXPECT_EQ(share.parameters, expected[share.type]) << stem << " " << share.type;
            EXPECT_EQ(share.bytes, tensor_bytes(type_named(share.type), share.parameters))
                << stem << " " << share.type;
            if (i > 0) {
                EXPECT_GE(info.weight_types[i - 1].parameters, share.parameters) << stem;
            }
            parameters += share.parameters;
        }
        EXPECT_EQ(parameters, info.parameters) << stem;
    }
    // The quantiser's label and the type most parameters are in.
    const auto info = read_model_info(test::model_path("synth-llama-256-Q3_K_M.gguf"));
    EXPECT_EQ(info.quantization, "Q3_K_M");
    EXPECT_EQ(info.weight_types.front().type, "Q3_K");
}

// A mixture of experts' active parameters are what one token reads: all but the experts the
// router leaves out. Counted here from the fixture's own tensor list (llama.cpp's shapes), each
// expert tensor's experts_used / expert_count slices; a dense model's are all of them.
TEST(ModelInfo, CountsTheParametersOneTokenReadsOfAMixtureOfExperts) {
    for (const char* stem : {"synth-qwen3moe-256", "synth-qwen3moe-256-Q4_K_M"}) {
        const auto json =
            test::load_json(test::fixture_path(std::string("models/") + stem + ".json"));
        const auto metadata = json["model"].toObject()["metadata"].toObject();
        const uint64_t experts = metadata["qwen3moe.expert_count"].toInteger();
        const uint64_t used = metadata["qwen3moe.expert_used_count"].toInteger();
        uint64_t total = 0, active = 0;
        for (const auto& value : json["model"].toObject()["tensors"].toArray()) {
            const auto tensor = value.toObject();
            uint64_t elements = 1;
            for (const auto& extent : tensor["ne"].toArray()) elements *= extent.toInteger();
            total += elements;
            const bool expert = tensor["name"].toString().contains("_exps.");
            active += expert ? elements / experts * used : elements;
        }
        const auto info = read_model_info(test::model_path(std::string(stem) + ".gguf"));
        EXPECT_EQ(info.parameters, total) << stem;
        EXPECT_EQ(info.active_parameters, active) << stem;
        // Two layers of 4 experts (2 used) of three 256 x 256 matrices: 393,216 of 786,432
        // expert parameters per layer are left out.
        EXPECT_EQ(info.parameters, 2'625'280u) << stem;
        EXPECT_EQ(info.active_parameters, 2'625'280u - 2 * 393'216u) << stem;
        EXPECT_EQ(info.expert_count, 4) << stem;
        EXPECT_EQ(info.experts_used, 2) << stem;
    }
    // The memory estimate still counts the whole file: it is mapped.
    const auto info = read_model_info(test::model_path("synth-qwen3moe-256-Q4_K_M.gguf"));
    EXPECT_GE(info.weight_bytes, info.file_bytes);
    const auto dense = read_model_info(test::model_path("synth-qwen3-256-Q4_K_M.gguf"));
    EXPECT_EQ(dense.active_parameters, dense.parameters);
    EXPECT_EQ(dense.expert_count, 0);
}

// A download's memory estimate comes from the file's first bytes alone: grown until the header
// parses, they give every figure the whole file gives, and far fewer bytes than the file.
TEST(ModelInfo, TheHeaderAloneGivesTheSameEstimateAsTheWholeFile) {
    for (const char* name :
         {"stories260K.gguf", "synth-llama-256-Q4_K_M.gguf", "synth-gemma3-256-Q4_K_M.gguf",
          "synth-phi3-256-Q4_K_M.gguf", "synth-qwen3moe-256-Q4_K_M.gguf"}) {
        const auto path = test::model_path(name);
        const auto bytes = test::read_bytes(path);
        const auto whole = read_model_info(path);
        size_t read = 4096;
        std::optional<ModelInfo> from_header;
        while (!from_header) {
            try {
                from_header = read_model_info(
                    GgufBeginning{std::span(bytes).first(read), bytes.size(), name});
            } catch (const GgufHeaderIncomplete& incomplete) {
                ASSERT_GT(incomplete.needed, read) << name;
                read =
                    std::min<size_t>(std::max<size_t>(incomplete.needed, 2 * read), bytes.size());
            }
        }
        EXPECT_LT(read, bytes.size() / 2) << name;
        EXPECT_EQ(from_header->file_bytes, whole.file_bytes) << name;
        EXPECT_EQ(from_header->parameters, whole.parameters) << name;
        EXPECT_EQ(from_header->quantization, whole.quantization) << name;
        EXPECT_EQ(from_header->context_length, whole.context_length) << name;
        EXPECT_EQ(from_header->weight_bytes, whole.weight_bytes) << name;
        EXPECT_EQ(from_header->working_bytes, whole.working_bytes) << name;
        EXPECT_EQ(from_header->memory_bytes(512), whole.memory_bytes(512)) << name;
        EXPECT_EQ(from_header->chat_family, whole.chat_family) << name;
    }
}

// A beginning whose tensors reach past the file size it is said to have is a corrupt file, named.
TEST(ModelInfo, AHeaderWhoseTensorsPassTheFileSizeIsRefused) {
    const auto bytes = test::read_bytes(test::model_path("stories260K.gguf"));
    const GgufFile file(GgufBeginning{bytes, bytes.size(), "stories260K.gguf"});
    const uint64_t short_size = file.data_offset() + 16;
    try {
        read_model_info(GgufBeginning{std::span(bytes).first(file.data_offset()), short_size,
                                      "stories260K.gguf"});
        FAIL() << "a header past its file size was accepted";
    } catch (const LoadError& error) {
        EXPECT_NE(std::string(error.what()).find("truncated or corrupt"), std::string::npos)
            << error.what();
    }
}

// A split model's estimate before its download: each part's header alone (its bytes up to its
// data section), read together, give what the picker gives for the parts on disk.
TEST(ModelInfo, EveryPartsHeaderGivesASplitModelsEstimate) {
    const test::TempDirectory directory;
    const auto paths =
        test::write_split_model(*GgufFile::open(test::model_path("synth-llama-256-Q4_K_M.gguf")),
                                directory.path() / "m", 3);
    std::vector<std::vector<std::byte>> bytes;
    for (const auto& path : paths) bytes.push_back(test::read_bytes(path));
    std::vector<GgufBeginning> headers;
    for (size_t index = 0; index < paths.size(); ++index) {
        const GgufFile part(GgufBeginning{bytes[index], bytes[index].size(), "part"});
        headers.push_back({std::span(bytes[index]).first(part.data_offset()), bytes[index].size(),
                           paths[index].filename().string()});
    }
    const auto on_disk = read_model_info(paths.front());
    const auto from_headers = read_model_info(headers);
    EXPECT_EQ(from_headers.file_bytes, on_disk.file_bytes);
    EXPECT_EQ(from_headers.parameters, on_disk.parameters);
    EXPECT_EQ(from_headers.weight_bytes, on_disk.weight_bytes);
    EXPECT_EQ(from_headers.working_bytes, on_disk.working_bytes);
    EXPECT_EQ(from_headers.memory_bytes(1024), on_disk.memory_bytes(1024));

    // The first part's header alone is not the model: it says every part is needed.
    try {
        read_model_info(headers.front());
        FAIL() << "a split model's first part alone gave an estimate";
    } catch (const LoadError& error) {
        EXPECT_NE(
            std::string(error.what()).find("split into 3 parts, but the headers of 1 were read"),
            std::string::npos)
            << error.what();
    }
    // Parts out of order are parts of another split.
    std::swap(headers[1], headers[2]);
    try {
        read_model_info(headers);
        FAIL() << "parts out of order gave an estimate";
    } catch (const LoadError& error) {
        EXPECT_NE(std::string(error.what()).find("is part 3 of 3, not part 2 of 3"),
                  std::string::npos)
            << error.what();
    }
}

}  // namespace
}  // namespace hearth
