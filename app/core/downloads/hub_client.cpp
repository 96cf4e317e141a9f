#include "app/core/downloads/hub_client.h"

#include <QNetworkReply>
#include <QUrlQuery>

#include "app/core/downloads/hub_error.h"
#include "app/core/downloads/hub_json.h"

namespace hearth::downloads {
namespace {

constexpr int kSearchResults = 30;

// Calls `done` with the reply once it finishes, then lets it go.
void on_finished(QNetworkReply* reply, std::function<void(QNetworkReply&)> done) {
    QObject::connect(reply, &QNetworkReply::finished, reply, [reply, done = std::move(done)] {
        done(*reply);
        reply->deleteLater();
    });
}

// Why the tree's next page is not read, or nullopt when it may be.
std::optional<HubError> endless_tree(const QUrl& next, const QSet<QUrl>& pages,
                                     const QString& what) {
    if (pages.contains(next)) {
        return HubError{HubErrorKind::Protocol,
                        QStringLiteral("The Hub's list of files of %1 leads back to a page "
                                       "already read (%2).")
                            .arg(what, next.toString())};
    }
    if (pages.size() >= kMaxHubTreePages) {
        return HubError{HubErrorKind::Protocol,
                        QStringLiteral("The Hub's list of files of %1 goes on past %2 pages "
                                       "(kMaxHubTreePages).")
                            .arg(what)
                            .arg(kMaxHubTreePages)};
    }
    return std::nullopt;
}

}  // namespace

HubSettings hub_settings_from_environment() {
    HubSettings settings;
    const QString endpoint = qEnvironmentVariable("HF_ENDPOINT");
    if (!endpoint.isEmpty()) settings.base_url = QUrl(endpoint);
    settings.token = qEnvironmentVariable("HF_TOKEN");
    return settings;
}

HubClient::HubClient(HubSettings settings, QObject* parent)
    : QObject(parent), m_settings(std::move(settings)) {
    m_network.setRedirectPolicy(QNetworkRequest::NoLessSafeRedirectPolicy);
}

QNetworkRequest HubClient::request(const QUrl& url) const {
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("Hearth"));
    // The bytes as stored: Range offsets and sizes count those, not a compressed stream.
    request.setRawHeader("Accept-Encoding", "identity");
    if (!m_settings.token.isEmpty()) {
        request.setRawHeader("Authorization", "Bearer " + m_settings.token.toUtf8());
    }
    return request;
}

QUrl HubClient::endpoint(const QString& path) const {
    QUrl url = m_settings.base_url;
    QString base = url.path();
    if (base.endsWith('/')) base.chop(1);
    url.setPath(base + path);
    return url;
}

QUrl HubClient::file_url(const QString& repository, const QString& file) const {
    return endpoint(QStringLiteral("/%1/resolve/main/%2").arg(repository, file));
}

void HubClient::search(const QString& words, Done<std::vector<HubModel>> done) {
    QUrl url = endpoint(QStringLiteral("/api/models"));
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("search"), words);
    query.addQueryItem(QStringLiteral("filter"), QStringLiteral("gguf"));
    query.addQueryItem(QStringLiteral("sort"), QStringLiteral("downloads"));
    query.addQueryItem(QStringLiteral("direction"), QStringLiteral("-1"));
    query.addQueryItem(QStringLiteral("limit"), QString::number(kSearchResults));
    url.setQuery(query);
    const bool token = token_sent();
    on_finished(m_network.get(request(url)), [done = std::move(done), token](QNetworkReply& reply) {
        if (auto error = reply_error(reply, QStringLiteral("the model search"), token)) {
            done({{}, error});
            return;
        }
        done(parse_model_search(reply.readAll()));
    });
}

void HubClient::list_files(const QString& repository, Done<std::vector<HubFile>> done) {
    QUrl url = endpoint(QStringLiteral("/api/models/%1/tree/main").arg(repository));
    url.setQuery(QStringLiteral("recursive=true"));
    list_page(url, repository, {}, std::move(done));
}

void HubClient::list_page(const QUrl& url, const QString& repository, TreeSoFar so_far,
                          Done<std::vector<HubFile>> done) {
    so_far.pages.insert(url);
    const bool token = token_sent();
    on_finished(m_network.get(request(url)),
                [this, repository, so_far = std::move(so_far), done = std::move(done),
                 token](QNetworkReply& reply) mutable {
                    const QString what = QStringLiteral("the repository %1").arg(repository);
                    if (auto error = reply_error(reply, what, token)) {
                        done({{}, error});
                        return;
                    }
                    auto page = parse_tree(reply.readAll());
                    if (!page.ok()) {
                        done(page);
                        return;
                    }
                    auto& files = so_far.files;
                    files.insert(files.end(), page.value.begin(), page.value.end());
                    const QUrl next = parse_next_page(reply.url(), reply.rawHeader("Link"));
                    if (!next.isValid()) {
                        done({std::move(files), std::nullopt});
                    } else if (auto endless = endless_tree(next, so_far.pages, repository)) {
                        done({{}, endless});
                    } else {
                        list_page(next, repository, std::move(so_far), std::move(done));
                    }
                });
}

void HubClient::read_range(const QString& repository, const QString& file, qint64 first,
                           qint64 last, Done<QByteArray> done) {
    QNetworkRequest ranged = request(file_url(repository, file));
    ranged.setRawHeader("Range", QStringLiteral("bytes=%1-%2").arg(first).arg(last).toLatin1());
    const bool token = token_sent();
    const QString what = QStringLiteral("the file %1 of %2").arg(file, repository);
    on_finished(m_network.get(ranged), [done = std::move(done), token, what, first,
                                        last](QNetworkReply& reply) {
        if (auto error = reply_error(reply, what, token)) {
            done({{}, error});
            return;
        }
        QByteArray bytes = reply.readAll();
        const int status = reply.attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        // A server that ignores Range sends the whole file from its start.
        if (status == 200 && first > 0) {
            bytes = bytes.mid(first);
        }
        if (bytes.size() > last - first + 1) bytes.truncate(last - first + 1);
        done({std::move(bytes), std::nullopt});
    });
}

}  // namespace hearth::downloads
