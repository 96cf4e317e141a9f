#include "app/server/api_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "app/server/answer_response.h"
#include "app/server/api_error.h"
#include "app/server/api_request.h"
#include "app/server/bearer_auth.h"
#include "app/server/bounded_http_server.h"
#include "app/server/metrics_text.h"
#include "app/server/observed_stream.h"
#include "app/server/served_model.h"

namespace hearth::server {
namespace {

using Clock = std::chrono::steady_clock;

// Connections beside every row's and every queued request's: /health, /metrics, /v1/models and
// idle keep-alive connections, which httplib holds a thread for while they last.
constexpr size_t kSpareThreads = 16;
// After the scheduler stops, answers get this long to write their end (a last chunk, a 503).
constexpr std::chrono::seconds kStopGrace{10};

// Every path the server answers and the one method it answers it with (HEAD goes with GET).
struct Route {
    const char* path;
    const char* method;
};
constexpr Route kRoutes[] = {{"/health", "GET"},
                             {"/metrics", "GET"},
                             {"/v1/models", "GET"},
                             {"/v1/chat/completions", "POST"},
                             {"/v1/completions", "POST"}};
constexpr const char* kModelPrefix = "/v1/models/";

// The method `path` is served with, or nullptr for a path nothing serves.
const char* route_method(const std::string& path) {
    for (const auto& route : kRoutes) {
        if (path == route.path) return route.method;
    }
    if (path.starts_with(kModelPrefix) && path.size() > std::strlen(kModelPrefix)) return "GET";
    return nullptr;
}

void set_error(httplib::Response& response, const ApiError& error) {
    response.status = error.status();
    response.set_content(error.body(), "application/json");
}

uint64_t random_salt() {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
}

int64_t unix_seconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

struct ApiServer::State {
    State(BatchScheduler& scheduler_in, ApiServerOptions options_in)
        : scheduler(scheduler_in),
          options(std::move(options_in)),
          served(served_model(scheduler.model_info())),
          limits{.context_length = scheduler.context_length(),
                 .max_messages = options.max_messages},
          http(options.max_head_bytes),
          id_salt(random_salt()) {}

    void configure();
    void install_routes();
    bool authorized(const httplib::Request& request) const;
    httplib::Server::Handler guarded(void (State::*handler)(const httplib::Request&,
                                                            httplib::Response&));
    void on_error(const httplib::Request& request, httplib::Response& response);
    void on_exception(httplib::Response& response, const std::exception_ptr& error);
    void log(const httplib::Request& request, const httplib::Response& response);

    void health(const httplib::Request& request, httplib::Response& response);
    void metrics(const httplib::Request& request, httplib::Response& response);
    void models(const httplib::Request& request, httplib::Response& response);
    void model(const httplib::Request& request, httplib::Response& response);
    void chat_completions(const httplib::Request& request, httplib::Response& response);
    void completions(const httplib::Request& request, httplib::Response& response);
    void unrouted(const httplib::Request& request, httplib::Response& response);

    template <typename Call>
    void answer(const Call& call, Endpoint endpoint, httplib::Response& response,
                ResultObserver observer = {});
    void require_model(const std::optional<std::string>& requested) const;
    ResponseIdentity identity(Endpoint endpoint);

    BatchScheduler& scheduler;
    ApiServerOptions options;
    ServedModel served;
    RequestLimits limits;
    BoundedHttpServer http;
    OpenAnswers open_answers;
    std::thread listener;
    std::atomic<bool> listening_ended{false};
    int port = 0;
    std::mutex lifecycle_mutex;
    bool stopped = false;
    uint64_t id_salt;
    std::atomic<uint64_t> next_id{0};
    // When each request in flight began, for the log line written when it ends.
    std::mutex timing_mutex;
    std::unordered_map<const httplib::Request*, Clock::time_point> started;
};

void ApiServer::State::configure() {
    // httplib serves each connection on one thread of this pool for as long as it lasts (a
    // streamed answer's whole life), so the pool holds a client for every row and every queued
    // request, and spares. httplib's API wants a raw pointer to a TaskQueue and takes ownership
    // of it (listen_after_bind keeps it in a unique_ptr): the one `new` the server makes.
    const auto& scheduling = scheduler.options();
    const size_t threads =
        static_cast<size_t>(scheduling.rows + scheduling.queue_limit) + kSpareThreads;
    http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    http.set_payload_max_length(options.max_body_bytes);
    http.set_pre_routing_handler([this](const httplib::Request& request, httplib::Response&) {
        std::lock_guard lock(timing_mutex);
        started[&request] = Clock::now();
        return httplib::Server::HandlerResponse::Unhandled;
    });
    http.set_error_handler([this](const httplib::Request& request, httplib::Response& response) {
        on_error(request, response);
    });
    http.set_exception_handler([this](const httplib::Request&, httplib::Response& response,
                                      std::exception_ptr error) { on_exception(response, error); });
    http.set_logger([this](const httplib::Request& request, const httplib::Response& response) {
        log(request, response);
    });
    install_routes();
}

void ApiServer::State::install_routes() {
    http.Get("/health", guarded(&State::health));
    http.Get("/metrics", guarded(&State::metrics));
    http.Get("/v1/models", guarded(&State::models));
    http.Get(R"(/v1/models/(.+))", guarded(&State::model));
    http.Post("/v1/chat/completions", guarded(&State::chat_completions));
    http.Post("/v1/completions", guarded(&State::completions));
    // Everything else, after the body was read: 405 on a known path, 404 on any other.
    const auto fallback = guarded(&State::unrouted);
    http.Get(".*", fallback);
    http.Post(".*", fallback);
    http.Put(".*", fallback);
    http.Patch(".*", fallback);
    http.Delete(".*", fallback);
    http.Options(".*", fallback);
}

bool ApiServer::State::authorized(const httplib::Request& request) const {
    return !options.api_key ||
           bearer_matches(request.get_header_value("Authorization"), *options.api_key);
}

// Every handler checks the key first, so a request without it learns nothing, not even
// whether its path exists.
httplib::Server::Handler ApiServer::State::guarded(void (State::*handler)(const httplib::Request&,
                                                                          httplib::Response&)) {
    return [this, handler](const httplib::Request& request, httplib::Response& response) {
        if (!authorized(request)) throw status_error(401);
        (this->*handler)(request, response);
    };
}

// httplib's own refusals (404 before a handler, 413, a malformed request) and every 4xx/5xx a
// handler set: the first get the OpenAI error shape here, the others already have their body.
void ApiServer::State::on_error(const httplib::Request& request, httplib::Response& response) {
    if (!authorized(request)) {
        set_error(response, status_error(401));
        response.set_header("WWW-Authenticate", "Bearer");
        return;
    }
    if (!response.body.empty()) return;
    if (response.status == 413) {
        set_error(response, ApiError(413, "invalid_request_error",
                                     fmt::format("the request body is larger than the {} bytes "
                                                 "this server accepts",
                                                 options.max_body_bytes),
                                     std::nullopt, "request_too_large"));
        return;
    }
    set_error(response, status_error(response.status));
}

void ApiServer::State::on_exception(httplib::Response& response, const std::exception_ptr& error) {
    const ApiError api = to_api_error(error);
    if (api.status() >= 500) spdlog::warn("request failed: {}", api.what());
    set_error(response, api);
}

void ApiServer::State::log(const httplib::Request& request, const httplib::Response& response) {
    std::string elapsed = "-";
    {
        std::lock_guard lock(timing_mutex);
        if (const auto found = started.find(&request); found != started.end()) {
            const std::chrono::duration<double, std::milli> ms = Clock::now() - found->second;
            elapsed = fmt::format("{:.1f}", ms.count());
            started.erase(found);
        }
    }
    spdlog::info("{} {} {} {} ms", request.method, request.path, response.status, elapsed);
}

void ApiServer::State::health(const httplib::Request&, httplib::Response& response) {
    response.set_content(R"({"status":"ok"})", "application/json");
}

void ApiServer::State::metrics(const httplib::Request&, httplib::Response& response) {
    response.set_content(metrics_text(scheduler.counters()), "text/plain; version=0.0.4");
}

void ApiServer::State::models(const httplib::Request&, httplib::Response& response) {
    response.set_content(
        models_body(served, catalog_files(options.catalog_folder, scheduler.model_info().path)),
        "application/json");
}

void ApiServer::State::model(const httplib::Request& request, httplib::Response& response) {
    const std::string name = request.matches[1].str();
    require_model(name);
    response.set_content(model_body(served), "application/json");
}

// Both endpoints: the model checked, the request queued and its answer written. The answer is
// held open from before it is queued, so stop() waits for it to be written. `observer`, if
// set, is told of the result as the response reads it.
template <typename Call>
void ApiServer::State::answer(const Call& call, Endpoint endpoint, httplib::Response& response,
                              ResultObserver observer) {
    require_model(call.mode.model);
    auto held = open_answers.hold();
    auto stream = scheduler.submit(call.request);
    if (observer) stream = observe_result(std::move(stream), std::move(observer));
    respond(stream, identity(endpoint), call.mode.stream, call.mode.include_usage, std::move(held),
            response);
}

void ApiServer::State::chat_completions(const httplib::Request& request,
                                        httplib::Response& response) {
    auto call = parse_chat_completion(request.body, limits);
    ResultObserver observer;
    if (options.on_chat_answered) {
        observer = [this, asked = call.request](const GenerationResult& result) {
            options.on_chat_answered(asked, result);
        };
    }
    answer(call, Endpoint::ChatCompletions, response, std::move(observer));
}

void ApiServer::State::completions(const httplib::Request& request, httplib::Response& response) {
    answer(parse_text_completion(request.body, limits), Endpoint::Completions, response);
}

void ApiServer::State::unrouted(const httplib::Request& request, httplib::Response& response) {
    const char* method = route_method(request.path);
    if (!method) {
        throw ApiError(404, "invalid_request_error", "no such path: " + request.path, std::nullopt,
                       "not_found");
    }
    response.set_header("Allow", method);
    throw ApiError(405, "invalid_request_error",
                   fmt::format("{} takes {}, not {}", request.path, method, request.method),
                   std::nullopt, "method_not_allowed");
}

void ApiServer::State::require_model(const std::optional<std::string>& requested) const {
    if (names_served(served, requested)) return;
    throw unknown_model(served, *requested,
                        catalog_files(options.catalog_folder, scheduler.model_info().path));
}

ResponseIdentity ApiServer::State::identity(Endpoint endpoint) {
    const char* prefix = endpoint == Endpoint::ChatCompletions ? "chatcmpl-" : "cmpl-";
    return {.endpoint = endpoint,
            .id = fmt::format("{}{:016x}{:08x}", prefix, id_salt, next_id.fetch_add(1)),
            .created = unix_seconds(),
            .model = served.id};
}

ApiServer::ApiServer(BatchScheduler& scheduler, ApiServerOptions options)
    : m_state(std::make_unique<State>(scheduler, std::move(options))) {
    m_state->configure();
}

ApiServer::~ApiServer() {
    stop();
}

void ApiServer::start() {
    State& state = *m_state;
    std::lock_guard lock(state.lifecycle_mutex);
    if (state.listener.joinable() || state.stopped) {
        throw std::logic_error("ApiServer::start: the server was already started");
    }
    const auto& host = state.options.host;
    errno = 0;
    const int port =
        state.options.port == 0
            ? state.http.bind_to_any_port(host)
            : (state.http.bind_to_port(host, state.options.port) ? state.options.port : -1);
    if (port <= 0) {
        throw std::runtime_error(
            fmt::format("cannot listen on {}:{}{}", host, state.options.port,
                        errno ? std::string(": ") + std::strerror(errno) : std::string()));
    }
    state.port = port;
    state.http.widen_backlog();
    state.listening_ended = false;
    state.listener = std::thread([&state] {
        state.http.listen_after_bind();
        state.listening_ended = true;
    });
    // stop() can only end a listen loop that has begun.
    while (!state.http.is_running() && !state.listening_ended) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

int ApiServer::port() const {
    return m_state->port;
}

void ApiServer::stop() {
    State& state = *m_state;
    std::lock_guard lock(state.lifecycle_mutex);
    if (state.stopped) return;
    state.stopped = true;
    state.scheduler.stop();
    if (!state.listener.joinable()) return;
    if (!state.open_answers.wait_until_none(kStopGrace)) {
        spdlog::warn("stopping with answers still being written");
    }
    state.http.stop();
    state.listener.join();
}

}  // namespace hearth::server
