#include "app/server/api_error.h"

#include <gtest/gtest.h>

#include "engine/compute/kv_cache.h"
#include "engine/grammar/json_schema.h"
#include "engine/serving/batch_scheduler.h"
#include "engine/text/jinja/errors.h"
#include "engine/text/jinja/json.h"

namespace hearth::server {
namespace {

template <typename Error>
ApiError mapped(const Error& error) {
    return to_api_error(std::make_exception_ptr(error));
}

TEST(ApiError, TheBodyHasOpenAIsShape) {
    EXPECT_EQ(ApiError::invalid_request("temperature must be a number", "temperature").body(),
              R"({"error":{"message":"temperature must be a number",)"
              R"("type":"invalid_request_error","param":"temperature","code":null}})");
}

TEST(ApiError, BusySchedulersMapTo429And503) {
    using Reason = SchedulerBusyError::Reason;
    EXPECT_EQ(mapped(SchedulerBusyError(Reason::QueueFull, "full")).status(), 429);
    EXPECT_EQ(mapped(SchedulerBusyError(Reason::WaitedTooLong, "late")).status(), 503);
    const ApiError stopping = mapped(SchedulerBusyError(Reason::Stopping, "stopping"));
    EXPECT_EQ(stopping.status(), 503);
    EXPECT_EQ(stopping.code(), "server_stopping");
}

TEST(ApiError, APromptLongerThanTheContextIs400NamingBothSizes) {
    const ApiError error = mapped(ContextFullError({.needed = 5000, .capacity = 2048}));
    EXPECT_EQ(error.status(), 400);
    EXPECT_EQ(error.code(), "context_length_exceeded");
    EXPECT_NE(std::string(error.what()).find("5000"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("2048"), std::string::npos);
}

TEST(ApiError, RequestsTheEngineRefusesAre400AndFailuresAre500) {
    EXPECT_EQ(mapped(SchemaError("'oneOf' is not supported")).param(), "response_format");
    EXPECT_EQ(mapped(jinja::TemplateRaised("roles must alternate")).status(), 400);
    EXPECT_EQ(mapped(std::invalid_argument("bad")).status(), 400);
    EXPECT_EQ(mapped(std::runtime_error("GPU lost")).status(), 500);
    EXPECT_EQ(mapped(ApiError(404, "invalid_request_error", "x")).status(), 404);
}

TEST(ApiError, HttpStatusesGetBodiesToo) {
    for (int status : {400, 401, 404, 405, 413, 414, 500}) {
        const ApiError error = status_error(status);
        EXPECT_EQ(error.status(), status);
        const auto body = jinja::parse_json(error.body());
        EXPECT_FALSE(
            body.as_object().find("error")->as_object().find("message")->as_string().empty());
    }
    EXPECT_EQ(status_error(401).code(), "invalid_api_key");
}

}  // namespace
}  // namespace hearth::server
