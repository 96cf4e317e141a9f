#include "app/server/answer_response.h"

#include <httplib.h>

#include <utility>
#include <variant>

#include "app/server/stream_frames.h"

namespace hearth::server {
namespace {

using Event = RequestStream::Event;

// How long one wait for the next event lasts. Between waits a streamed answer checks that its
// client is still connected, so a client that left during a long prefill frees its row this
// soon; a decoding row notices at its next chunk.
constexpr std::chrono::milliseconds kPoll{50};

Event next_event(RequestStream& stream) {
    while (true) {
        if (auto event = stream.next(kPoll)) return std::move(*event);
    }
}

void rethrow_failure(const Event& event) {
    if (const auto* error = std::get_if<std::exception_ptr>(&event)) std::rethrow_exception(*error);
}

GenerationResult whole_answer(RequestStream& stream, Event event) {
    while (true) {
        rethrow_failure(event);
        if (auto* result = std::get_if<GenerationResult>(&event)) return std::move(*result);
        event = next_event(stream);
    }
}

// One streamed answer being written: httplib calls `provide` until it ends the body, and the
// releaser when the response is done with, however it ended.
class StreamWriter final {
public:
    StreamWriter(std::shared_ptr<RequestStream> stream, StreamFrames frames, Event first,
                 std::shared_ptr<const void> held)
        : m_stream(std::move(stream)),
          m_frames(std::move(frames)),
          m_pending(std::move(first)),
          m_held(std::move(held)) {}

    // Writes what has come in since the last call. False ends the response unfinished (the
    // client is gone); nothing may escape, since httplib calls this outside its handlers' guard.
    bool provide(httplib::DataSink& sink) noexcept {
        try {
            return provide_or_throw(sink);
        } catch (...) {
            m_stream->cancel();
            return false;
        }
    }

    // The response is gone: an answer not written to its end frees its row now.
    void release() noexcept {
        if (!m_finished) m_stream->cancel();
    }

private:
    bool provide_or_throw(httplib::DataSink& sink) {
        if (!m_opened) {
            m_opened = true;
            if (!write(sink, m_frames.opening())) return false;
        }
        std::optional<Event> event = std::exchange(m_pending, std::nullopt);
        if (!event) event = m_stream->next(kPoll);
        if (!event) return still_connected(sink);
        if (const auto* chunk = std::get_if<TokenChunk>(&*event)) {
            return write(sink, m_frames.text(*chunk));
        }
        m_finished = true;
        const auto* result = std::get_if<GenerationResult>(&*event);
        const std::string last =
            result ? m_frames.closing(*result)
                   : m_frames.failure(to_api_error(std::get<std::exception_ptr>(*event)));
        if (!write(sink, last)) return false;
        sink.done();
        return true;
    }

    // Nothing was decoded meanwhile (a prefill, a busy step): a closed connection shows here.
    bool still_connected(httplib::DataSink& sink) {
        if (sink.is_writable()) return true;
        m_stream->cancel();
        return false;
    }

    bool write(httplib::DataSink& sink, const std::string& text) {
        // An empty write would end httplib's chunked body, so nothing is written for nothing.
        if (text.empty() || sink.write(text.data(), text.size())) return true;
        m_stream->cancel();
        return false;
    }

    std::shared_ptr<RequestStream> m_stream;
    StreamFrames m_frames;
    std::optional<Event> m_pending;      // the first event, read before the headers went out
    std::shared_ptr<const void> m_held;  // counts this answer as open while it is written
    bool m_opened = false;
    bool m_finished = false;
};

}  // namespace

std::shared_ptr<const void> OpenAnswers::hold() {
    {
        std::lock_guard lock(m_mutex);
        ++m_open;
    }
    return std::shared_ptr<const void>(nullptr, [this](const void*) {
        {
            std::lock_guard lock(m_mutex);
            --m_open;
        }
        m_changed.notify_all();
    });
}

bool OpenAnswers::wait_until_none(std::chrono::milliseconds timeout) {
    std::unique_lock lock(m_mutex);
    return m_changed.wait_for(lock, timeout, [this] { return m_open == 0; });
}

void respond(const std::shared_ptr<RequestStream>& stream, const ResponseIdentity& identity,
             bool stream_response, bool include_usage, std::shared_ptr<const void> held,
             httplib::Response& response) {
    Event first = next_event(*stream);
    rethrow_failure(first);
    if (!stream_response) {
        const GenerationResult result = whole_answer(*stream, std::move(first));
        // Only stop() cancels an answer nobody streams: a cut answer is not a 200.
        if (result.stats.stop_reason == StopReason::Cancelled) {
            throw SchedulerBusyError(SchedulerBusyError::Reason::Stopping,
                                     "the server stopped before the answer was complete");
        }
        response.set_content(response_body(identity, result), "application/json");
        return;
    }
    auto writer = std::make_shared<StreamWriter>(stream, StreamFrames(identity, include_usage),
                                                 std::move(first), std::move(held));
    response.set_header("Cache-Control", "no-cache");
    response.set_header("X-Accel-Buffering", "no");  // a reverse proxy must not hold chunks back
    response.set_chunked_content_provider(
        "text/event-stream",
        [writer](size_t /*offset*/, httplib::DataSink& sink) { return writer->provide(sink); },
        [writer](bool /*success*/) { writer->release(); });
}

}  // namespace hearth::server
