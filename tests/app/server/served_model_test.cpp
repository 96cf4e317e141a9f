#include "app/server/served_model.h"

#include <gtest/gtest.h>

#include <fstream>

#include "engine/text/jinja/json.h"
#include "tests/support/temp_files.h"

namespace hearth::server {
namespace {

ServedModel stories() {
    ModelInfo info;
    info.path = "/models/stories260K.gguf";
    info.name = "Stories 260K";
    return served_model(info);
}

TEST(ServedModel, TheIdIsTheFileNameWithoutGguf) {
    EXPECT_EQ(stories().id, "stories260K");
}

TEST(ServedModel, RequestsMayNameItByIdFileOrMetadataNameInAnyCase) {
    const ServedModel served = stories();
    for (const char* name :
         {"stories260K", "STORIES260k", "stories260K.gguf", "Stories 260K", "stories 260k"}) {
        EXPECT_TRUE(names_served(served, std::string(name))) << name;
    }
    EXPECT_TRUE(names_served(served, std::nullopt));
    for (const char* name : {"gpt-4o", "default", "", "stories"}) {
        EXPECT_FALSE(names_served(served, std::string(name))) << name;
    }
}

TEST(ServedModel, ASplitModelIsNamedWithoutItsPartNumbers) {
    ModelInfo info;
    info.path = "/models/big-00001-of-00003.gguf";
    const ServedModel served = served_model(info);
    EXPECT_EQ(served.id, "big");
    for (const char* name : {"big", "BIG", "big-00001-of-00003", "big-00001-of-00003.gguf"}) {
        EXPECT_TRUE(names_served(served, std::string(name))) << name;
    }
    EXPECT_FALSE(names_served(served, std::string("big-00002-of-00003")));
    const ApiError catalog = unknown_model(stories(), "big", {"/m/big-00001-of-00002.gguf"});
    EXPECT_NE(std::string(catalog.what()).find("not loaded"), std::string::npos);
}

TEST(ServedModel, AnUnknownModelIs404SayingWhatRuns) {
    const ApiError error = unknown_model(stories(), "gpt-4o", {});
    EXPECT_EQ(error.status(), 404);
    EXPECT_EQ(error.code(), "model_not_found");
    EXPECT_EQ(error.param(), "model");
    EXPECT_NE(std::string(error.what()).find("stories260K"), std::string::npos);
    const ApiError catalog = unknown_model(stories(), "qwen", {"/m/qwen.gguf"});
    EXPECT_NE(std::string(catalog.what()).find("not loaded"), std::string::npos);
}

TEST(ServedModel, TheListHasTheServedModelFirstThenTheCatalog) {
    const test::TempDirectory folder;
    std::filesystem::create_directories(folder.path() / "nested");
    std::ofstream(folder.path() / "a.gguf") << "x";
    std::ofstream(folder.path() / "nested" / "b.gguf") << "x";
    std::ofstream(folder.path() / "notes.txt") << "x";
    std::ofstream(folder.path() / "stories260K.gguf") << "x";
    // A split model is listed once, named without its part numbers.
    std::ofstream(folder.path() / "big-00001-of-00002.gguf") << "x";
    std::ofstream(folder.path() / "big-00002-of-00002.gguf") << "x";
    const auto files = catalog_files(folder.path(), folder.path() / "stories260K.gguf");
    ASSERT_EQ(files.size(), 3u);  // the served file is listed once, as the served model

    const auto body = jinja::parse_json(models_body(stories(), files));
    EXPECT_EQ(body.as_object().find("object")->as_string(), "list");
    const auto& data = body.as_object().find("data")->as_array();
    ASSERT_EQ(data.size(), 4u);
    EXPECT_EQ(data[0].as_object().find("id")->as_string(), "stories260K");
    EXPECT_EQ(data[0].as_object().find("object")->as_string(), "model");
    std::vector<std::string> others{data[1].as_object().find("id")->as_string(),
                                    data[2].as_object().find("id")->as_string(),
                                    data[3].as_object().find("id")->as_string()};
    std::sort(others.begin(), others.end());
    EXPECT_EQ(others, (std::vector<std::string>{"a", "b", "big"}));
    EXPECT_TRUE(catalog_files({}, "x.gguf").empty());
    EXPECT_TRUE(catalog_files(folder.path() / "missing", "x.gguf").empty());
}

}  // namespace
}  // namespace hearth::server
