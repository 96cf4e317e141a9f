#include "app/core/downloads/hub_error.h"

namespace hearth::downloads {
namespace {

// Connection problems: no HTTP status at all.
std::optional<HubError> network_error(const QNetworkReply& reply, const QString& what) {
    const QString host = reply.url().host();
    switch (reply.error()) {
        case QNetworkReply::NoError:
            return std::nullopt;
        case QNetworkReply::ConnectionRefusedError:
        case QNetworkReply::HostNotFoundError:
        case QNetworkReply::TimeoutError:
        case QNetworkReply::TemporaryNetworkFailureError:
        case QNetworkReply::NetworkSessionFailedError:
        case QNetworkReply::UnknownNetworkError:
        case QNetworkReply::ProxyConnectionRefusedError:
        case QNetworkReply::ProxyNotFoundError:
            return HubError{HubErrorKind::Offline,
                            QStringLiteral("Could not reach %1 for %2 (%3): check the network "
                                           "connection and try again.")
                                .arg(host, what, reply.errorString())};
        case QNetworkReply::RemoteHostClosedError:
            return HubError{HubErrorKind::Offline,
                            QStringLiteral("%1 closed the connection during %2: the connection "
                                           "dropped; try again.")
                                .arg(host, what)};
        case QNetworkReply::SslHandshakeFailedError:
        case QNetworkReply::InsecureRedirectError:  // sent from https to plain http
            return HubError{HubErrorKind::Tls,
                            QStringLiteral("The secure connection to %1 failed for %2 (%3): a "
                                           "proxy or the system's certificates may be in the way.")
                                .arg(host, what, reply.errorString())};
        case QNetworkReply::OperationCanceledError:
            return HubError{HubErrorKind::Cancelled, QStringLiteral("Stopped %1.").arg(what)};
        default:
            return std::nullopt;  // an HTTP status: status_error says what it means
    }
}

std::optional<int> retry_after(const QNetworkReply& reply) {
    bool number = false;
    const int seconds = reply.rawHeader("Retry-After").trimmed().toInt(&number);
    return number && seconds >= 0 ? std::optional<int>(seconds) : std::nullopt;
}

HubError status_error(const QNetworkReply& reply, int status, const QString& what,
                      bool token_sent) {
    // The Hub names its refusals in X-Error-Code (huggingface_hub reads the same header); a
    // missing repository answers 401 with RepoNotFound to strangers.
    const QByteArray code = reply.rawHeader("X-Error-Code");
    if (code == "RepoNotFound" || code == "EntryNotFound" || status == 404) {
        return {HubErrorKind::NotFound,
                QStringLiteral("Not found on the Hub (HTTP %2): %1. Check the repository and "
                               "file name.")
                    .arg(what)
                    .arg(status),
                status};
    }
    if (status == 401 || status == 403) {
        const QString cause =
            token_sent ? QStringLiteral("the access token was refused or has no access to it")
                       : QStringLiteral("it is gated or private and needs an access token");
        return {HubErrorKind::NeedsToken,
                QStringLiteral("The Hub refused %1 (HTTP %2): %3. Accept the model's terms on its "
                               "page and add a token from huggingface.co/settings/tokens.")
                    .arg(what)
                    .arg(status)
                    .arg(cause),
                status};
    }
    if (status == 429) {
        HubError error{HubErrorKind::RateLimited, {}, status, retry_after(reply)};
        error.text = error.retry_after_seconds
                         ? QStringLiteral(
                               "The Hub is limiting requests (HTTP 429) for %1: try "
                               "again in %2 seconds.")
                               .arg(what)
                               .arg(*error.retry_after_seconds)
                         : QStringLiteral(
                               "The Hub is limiting requests (HTTP 429) for %1: try "
                               "again in a while.")
                               .arg(what);
        return error;
    }
    if (status >= 500) {
        return {HubErrorKind::Server,
                QStringLiteral("The Hub failed to answer %1 (HTTP %2, a server error): try again "
                               "later.")
                    .arg(what)
                    .arg(status),
                status};
    }
    return {HubErrorKind::Protocol,
            QStringLiteral("The Hub answered %1 with HTTP %2.").arg(what).arg(status), status};
}

}  // namespace

std::optional<HubError> reply_error(QNetworkReply& reply, const QString& what, bool token_sent) {
    const QVariant status_value = reply.attribute(QNetworkRequest::HttpStatusCodeAttribute);
    const int status = status_value.isValid() ? status_value.toInt() : 0;
    if (status >= 400) return status_error(reply, status, what, token_sent);
    if (auto error = network_error(reply, what)) return error;
    if (reply.error() != QNetworkReply::NoError) {
        return HubError{HubErrorKind::Protocol,
                        QStringLiteral("%1 failed: %2").arg(what, reply.errorString()), status};
    }
    return std::nullopt;
}

}  // namespace hearth::downloads
