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

// The answers still being written, so stopping can let each write its end before the sockets
// close: a request is held from before it is queued until its response is gone.
class OpenAnswers final {
public:
    // Counts one answer until the returned holder (and every copy) is gone.
    std::shared_ptr<const void> hold();
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
// `held` (from OpenAnswers::hold) is kept until the streamed body is written.
void respond(const std::shared_ptr<RequestStream>& stream, const ResponseIdentity& identity,
             bool stream_response, bool include_usage, std::shared_ptr<const void> held,
             httplib::Response& response);

}  // namespace hearth::server
