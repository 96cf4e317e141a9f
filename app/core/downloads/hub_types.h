// The plain data the Hugging Face client, its downloads and their callers share.
#pragma once

#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>
#include <vector>

namespace hearth::downloads {

// Where the Hub is and who asks: tests point base_url at a loopback server.
struct HubSettings {
    QUrl base_url{QStringLiteral("https://huggingface.co")};
    QString token;  // a Hugging Face access token for gated or private repositories; may be empty
};

// One result of the Hub's model search.
struct HubModel {
    QString id;                       // "owner/name"
    std::optional<qint64> downloads;  // nullopt when the search answer gives no count
    qint64 likes = 0;
    QStringList tags;
};

// One file of a repository, as its tree lists it.
struct HubFile {
    QString path;  // inside the repository, "sub/dir/name.gguf"
    qint64 size = 0;
    QString sha256;   // the LFS object id (hex); empty for a file not stored with LFS
    QString git_oid;  // the git blob id (hex sha1 of "blob SIZE\0" and the bytes)
};

// What can go wrong talking to the Hub or writing a download, each cause a user acts on
// differently.
enum class HubErrorKind {
    Offline,      // no connection: refused, unreachable, name not found, timed out
    Tls,          // the secure connection failed
    NeedsToken,   // 401/403: gated or private; an access token (with access) is needed
    NotFound,     // 404: no such repository or file
    RateLimited,  // 429: the Hub asks to wait (retry_after_seconds)
    Server,       // 5xx
    Disk,         // not enough space, or a write failed
    Integrity,    // the bytes are not what the Hub lists (sha256, size)
    Protocol,     // an answer that cannot be read
    Cancelled,
};

struct HubError {
    HubErrorKind kind = HubErrorKind::Protocol;
    QString text;    // the cause in words, for the user
    int status = 0;  // the HTTP status, 0 where there was none
    std::optional<int> retry_after_seconds;
};

// A value, or why there is none.
template <typename T>
struct HubResult {
    T value{};
    std::optional<HubError> error;
    bool ok() const { return !error.has_value(); }
};

}  // namespace hearth::downloads
