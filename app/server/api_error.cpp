#include "app/server/api_error.h"

#include <fmt/format.h>

#include "app/server/json_text.h"
#include "engine/compute/kv_cache.h"
#include "engine/grammar/json_schema.h"
#include "engine/runtime/memory_check.h"
#include "engine/serving/batch_scheduler.h"
#include "engine/text/jinja/errors.h"

namespace hearth::server {
namespace {

jinja::Value optional_text(const std::optional<std::string>& text) {
    return text ? jinja::Value(*text) : jinja::Value(jinja::None{});
}

ApiError busy_error(const SchedulerBusyError& busy) {
    switch (busy.reason()) {
        case SchedulerBusyError::Reason::QueueFull:
            return ApiError(429, "rate_limit_error", busy.what(), std::nullopt, "queue_full");
        case SchedulerBusyError::Reason::WaitedTooLong:
            return ApiError(503, "server_error", busy.what(), std::nullopt, "queue_timeout");
        case SchedulerBusyError::Reason::Stopping:
            break;
    }
    return ApiError(503, "server_error", busy.what(), std::nullopt, "server_stopping");
}

ApiError context_error(const ContextFullError& full) {
    const auto& facts = full.facts();
    return ApiError::invalid_request(
        fmt::format("the prompt needs {} tokens but the context holds {}: shorten the "
                    "conversation",
                    facts.needed, facts.capacity),
        std::nullopt, "context_length_exceeded");
}

}  // namespace

ApiError::ApiError(int status, std::string type, const std::string& message,
                   std::optional<std::string> param, std::optional<std::string> code)
    : std::runtime_error(message),
      m_status(status),
      m_type(std::move(type)),
      m_param(std::move(param)),
      m_code(std::move(code)) {}

ApiError ApiError::invalid_request(const std::string& message, std::optional<std::string> param,
                                   std::optional<std::string> code) {
    return ApiError(400, "invalid_request_error", message, std::move(param), std::move(code));
}

std::string ApiError::body() const {
    jinja::Object error;
    error.set("message", jinja::Value(std::string(what())));
    error.set("type", jinja::Value(m_type));
    error.set("param", optional_text(m_param));
    error.set("code", optional_text(m_code));
    jinja::Object body;
    body.set("error", jinja::Value(std::move(error)));
    return compact_json(jinja::Value(std::move(body)));
}

ApiError to_api_error(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (const ApiError& api) {
        return api;
    } catch (const SchedulerBusyError& busy) {
        return busy_error(busy);
    } catch (const ContextFullError& full) {
        return context_error(full);
    } catch (const SchemaError& schema) {
        return ApiError::invalid_request(
            std::string("response_format's schema is not supported: ") + schema.what(),
            "response_format");
    } catch (const jinja::RenderError& render) {
        // The model's chat template refused the conversation (roles out of order, a limit):
        // the client can change the request, so it is the request's fault.
        return ApiError::invalid_request(
            std::string("the model's chat template refused the conversation: ") + render.what(),
            "messages");
    } catch (const std::invalid_argument& invalid) {
        return ApiError::invalid_request(invalid.what());
    } catch (const InsufficientMemoryError& memory) {
        return ApiError(503, "server_error", memory.what(), std::nullopt, "insufficient_memory");
    } catch (const std::exception& other) {
        return ApiError(500, "server_error", other.what());
    } catch (...) {
        return ApiError(500, "server_error", "the server failed in an unexpected way");
    }
}

ApiError status_error(int status) {
    switch (status) {
        case 400:
            return ApiError::invalid_request(
                "the HTTP request is malformed, or its request line and headers are too long");
        case 401:
            return ApiError(401, "invalid_request_error", "missing or wrong API key", std::nullopt,
                            "invalid_api_key");
        case 404:
            return ApiError(404, "invalid_request_error", "no such path", std::nullopt,
                            "not_found");
        case 413:
            return ApiError(413, "invalid_request_error", "the request body is too large",
                            std::nullopt, "request_too_large");
        case 414:
            return ApiError(414, "invalid_request_error", "the request line is too long");
        case 416:
            return ApiError(416, "invalid_request_error", "ranges are not supported");
        default:
            break;
    }
    if (status >= 500) return ApiError(status, "server_error", "the server failed");
    return ApiError(status, "invalid_request_error", fmt::format("HTTP status {}", status));
}

}  // namespace hearth::server
