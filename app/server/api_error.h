// An API request that cannot be answered, in the shape OpenAI's clients read:
// {"error": {"message", "type", "param", "code"}} with the HTTP status that goes with it. Every
// way a request fails (a bad field, an unknown model, a full queue, an engine error) becomes one
// of these in one place, so every route answers failures alike.
#pragma once

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

namespace hearth::server {

class ApiError : public std::runtime_error {
public:
    ApiError(int status, std::string type, const std::string& message,
             std::optional<std::string> param = std::nullopt,
             std::optional<std::string> code = std::nullopt);

    // 400: the request itself is wrong; `param` names the field ("messages[2].content").
    static ApiError invalid_request(const std::string& message,
                                    std::optional<std::string> param = std::nullopt,
                                    std::optional<std::string> code = std::nullopt);

    int status() const { return m_status; }
    const std::string& type() const { return m_type; }
    const std::optional<std::string>& param() const { return m_param; }
    const std::optional<std::string>& code() const { return m_code; }

    // The response body: {"error": {...}} as compact JSON.
    std::string body() const;

private:
    int m_status;
    std::string m_type;
    std::optional<std::string> m_param;
    std::optional<std::string> m_code;
};

// What a failed request's exception means to a client: ApiError as it is, the engine's typed
// errors with their status (a prompt longer than the context 400, a full queue 429, a stopping
// or overloaded scheduler 503, a template or schema the request broke 400), anything else 500.
ApiError to_api_error(const std::exception_ptr& error);

// The error an HTTP status carries when nothing more specific was said (the HTTP library's own
// 404, 413, 400 for a malformed request line, ...).
ApiError status_error(int status);

}  // namespace hearth::server
