// Turns one queued request's stream of events into the HTTP response: the whole answer as one
// JSON body, or its chunks as Server-Sent Events while they are decoded. Either way the status is
// decided before any header is sent, from the stream's first event, so a request refused while
// it waited in the queue gets its 429/503 rather than a 200 followed by an error. A streamed
// answer whose client goes away is cancelled at the next write or poll, freeing its row.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "app/server/api_response.h"
#include "engine/serving/batch_scheduler.h"

namespace httplib {
struct Response;
}

namespace hearth::server {

// How many streamed answers are still being written, so stopping can let them finish.
class OpenStreams final {
public:
    // Held by a stream while it is written; counts it until destroyed.
    class Token final {
    public:
        explicit Token(OpenStreams& owner);
        ~Token();
        Token(const Token&) = delete;
        Token& operator=(const Token&) = delete;

    private:
        OpenStreams& m_owner;
    };

    // True when none is open, waiting up to `timeout` for the last to end.
    bool wait_until_none(std::chrono::milliseconds timeout);

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_open = 0;
};

// Waits for the stream's first event and fills `response`: an exception as the first event is
// rethrown (the caller's error mapping answers it); otherwise 200 with the JSON body, or with a
// chunked SSE body written as the events arrive.
void respond(const std::shared_ptr<RequestStream>& stream, const ResponseIdentity& identity,
             bool stream_response, bool include_usage, OpenStreams& open_streams,
             httplib::Response& response);

}  // namespace hearth::server
