// Hugging Face's Hub over Qt Network: the model search, a repository's files, and byte ranges of
// a file. Every request starts only when called (the rest of the app never needs the network);
// answers arrive through the callbacks on the thread the client lives on.
#pragma once

#include <QNetworkAccessManager>
#include <QObject>
#include <QSet>
#include <QUrl>

#include <functional>
#include <vector>

#include "app/core/downloads/hub_types.h"

namespace hearth::downloads {

// huggingface.co, or HF_ENDPOINT's address where it is set (Hugging Face's own tools read the
// same variable; tests point it at a loopback hub), with HF_TOKEN as the token.
HubSettings hub_settings_from_environment();

class HubClient final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HubClient)

public:
    template <typename T>
    using Done = std::function<void(HubResult<T>)>;

    explicit HubClient(HubSettings settings, QObject* parent = nullptr);

    const HubSettings& settings() const { return m_settings; }
    void set_token(const QString& token) { m_settings.token = token; }

    // GET /api/models?search=WORDS: the best-known GGUF repositories first.
    void search(const QString& words, Done<std::vector<HubModel>> done);
    // GET /api/models/REPO/tree/main?recursive=true, following the Link header's next pages.
    void list_files(const QString& repository, Done<std::vector<HubFile>> done);
    // Bytes [first, last] of a file, with an HTTP Range request.
    void read_range(const QString& repository, const QString& file, qint64 first, qint64 last,
                    Done<QByteArray> done);

    // GET /REPO/resolve/main/FILE, which redirects to where the bytes are.
    QUrl file_url(const QString& repository, const QString& file) const;
    // A request with the token (if any) and Hearth's user agent; redirects are followed.
    QNetworkRequest request(const QUrl& url) const;
    QNetworkAccessManager& network() { return m_network; }
    bool token_sent() const { return !m_settings.token.isEmpty(); }

private:
    // BASE_URL/PATH, keeping any path the base address has (a mirror's prefix).
    QUrl endpoint(const QString& path) const;
    struct TreeSoFar {
        std::vector<HubFile> files;
        QSet<QUrl> pages;  // read or asked for: a next page among them would never end
    };
    void list_page(const QUrl& url, const QString& repository, TreeSoFar so_far,
                   Done<std::vector<HubFile>> done);

    HubSettings m_settings;
    QNetworkAccessManager m_network;
};

}  // namespace hearth::downloads
