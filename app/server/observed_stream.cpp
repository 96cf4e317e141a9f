#include "app/server/observed_stream.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <utility>
#include <variant>

namespace hearth::server {
namespace {

class ObservedStream final : public RequestStream {
public:
    ObservedStream(std::shared_ptr<RequestStream> stream, ResultObserver observer)
        : m_stream(std::move(stream)), m_observer(std::move(observer)) {}

    std::optional<Event> next(std::chrono::milliseconds timeout) override {
        auto event = m_stream->next(timeout);
        if (event) {
            if (const auto* result = std::get_if<GenerationResult>(&*event)) tell(*result);
        }
        return event;
    }

    void cancel() override { m_stream->cancel(); }
    bool started() const override { return m_stream->started(); }

private:
    void tell(const GenerationResult& result) {
        if (!m_observer || result.stats.stop_reason == StopReason::Cancelled) return;
        const ResultObserver observer = std::exchange(m_observer, nullptr);  // once
        try {
            observer(result);
        } catch (const std::exception& error) {
            spdlog::warn("an answer's observer failed: {}", error.what());
        } catch (...) {
            spdlog::warn("an answer's observer failed");
        }
    }

    std::shared_ptr<RequestStream> m_stream;
    ResultObserver m_observer;
};

}  // namespace

std::shared_ptr<RequestStream> observe_result(std::shared_ptr<RequestStream> stream,
                                              ResultObserver observer) {
    return std::make_shared<ObservedStream>(std::move(stream), std::move(observer));
}

}  // namespace hearth::server
