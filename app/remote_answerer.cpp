#include "app/remote_answerer.h"

#include <fmt/format.h>

#include <stdexcept>

namespace hearth {
namespace {

remote::RemoteEndpoint endpoint(const core::RemoteChoice& choice, const core::ApiKeyStore& keys,
                                std::chrono::milliseconds idle_timeout) {
    const core::KeyResult key = keys.read(choice.connection.name);
    if (!key.ok) {
        throw std::runtime_error(fmt::format("Could not read the API key of {}: {}",
                                             choice.connection.name.toStdString(),
                                             key.detail.toStdString()));
    }
    return {.base_url = choice.connection.base_url.toStdString(),
            .api_key = key.key.toStdString(),
            .trusted_certificate = choice.connection.trusted_certificate.toStdString(),
            .idle_timeout = idle_timeout};
}

// Names joined for a notice: "top_k, min_p".
std::string joined(const std::vector<std::string>& names) {
    return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

RemoteAnswerer::RemoteAnswerer(core::RemoteChoice choice, const core::ApiKeyStore& keys,
                               std::chrono::milliseconds idle_timeout)
    : m_choice(std::move(choice)), m_client(endpoint(m_choice, keys, idle_timeout)) {}

GenerationResult RemoteAnswerer::answer(const ChatRequest& request, const GenerationSink& sink,
                                        const std::atomic<bool>* cancel) {
    remote::RemoteAnswer answer =
        m_client.chat(m_choice.model.toStdString(), request, sink, cancel);
    // Said with the answer, not dropped: the user asked for these settings.
    if (!answer.settings_not_sent.empty()) {
        answer.result.notices.push_back(
            {.kind = NoticeKind::SettingsNotSent, .detail = joined(answer.settings_not_sent)});
    }
    if (!answer.settings_as_extensions.empty()) {
        answer.result.notices.push_back({.kind = NoticeKind::SettingsAsExtensions,
                                         .detail = joined(answer.settings_as_extensions)});
    }
    return std::move(answer.result);
}

}  // namespace hearth
