#include "app/core/downloads/hub_json.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace hearth::downloads {
namespace {

HubError unreadable(const QString& what, const QString& problem) {
    return {HubErrorKind::Protocol,
            QStringLiteral("The Hub's %1 could not be read (%2).").arg(what, problem)};
}

// The array the Hub answers with, or why it is not one.
std::optional<QJsonArray> json_array(const QByteArray& json, const QString& what,
                                     std::optional<HubError>& error) {
    QJsonParseError parse_error;
    const auto document = QJsonDocument::fromJson(json, &parse_error);
    if (parse_error.error != QJsonParseError::NoError) {
        error = unreadable(what, parse_error.errorString());
        return std::nullopt;
    }
    if (!document.isArray()) {
        error = unreadable(what, QStringLiteral("not a list"));
        return std::nullopt;
    }
    return document.array();
}

}  // namespace

HubResult<std::vector<HubModel>> parse_model_search(const QByteArray& json) {
    HubResult<std::vector<HubModel>> result;
    const auto array = json_array(json, QStringLiteral("model search answer"), result.error);
    if (!array) return result;
    for (const auto& value : *array) {
        const auto object = value.toObject();
        HubModel model;
        model.id = object.value("id").toString(object.value("modelId").toString());
        if (model.id.isEmpty()) continue;
        if (const auto downloads = object.value("downloads"); downloads.isDouble()) {
            model.downloads = downloads.toInteger();
        }
        model.likes = object.value("likes").toInteger();
        for (const auto& tag : object.value("tags").toArray()) model.tags << tag.toString();
        result.value.push_back(std::move(model));
    }
    return result;
}

HubResult<std::vector<HubFile>> parse_tree(const QByteArray& json) {
    HubResult<std::vector<HubFile>> result;
    const auto array = json_array(json, QStringLiteral("list of repository files"), result.error);
    if (!array) return result;
    for (const auto& value : *array) {
        const auto object = value.toObject();
        if (object.value("type").toString() != QLatin1String("file")) continue;
        HubFile file;
        file.path = object.value("path").toString();
        file.size = object.value("size").toInteger(-1);
        file.git_oid = object.value("oid").toString().toLower();
        const auto lfs = object.value("lfs").toObject();
        if (!lfs.isEmpty()) {
            file.sha256 = lfs.value("oid").toString().toLower();
            file.size = lfs.value("size").toInteger(file.size);
        }
        if (file.path.isEmpty() || file.size < 0) {
            result.error = unreadable(QStringLiteral("list of repository files"),
                                      QStringLiteral("a file without a path or size"));
            return result;
        }
        if (file.size > kMaxHubFileBytes) {
            result.error = unreadable(
                QStringLiteral("list of repository files"),
                QStringLiteral("%1 is listed with %2 bytes, more than Hearth accepts from the Hub "
                               "(kMaxHubFileBytes, 1 TiB)")
                    .arg(file.path)
                    .arg(file.size));
            return result;
        }
        result.value.push_back(std::move(file));
    }
    return result;
}

QUrl parse_next_page(const QUrl& page, const QByteArray& link) {
    static const QRegularExpression next(QStringLiteral(R"(<([^>]+)>\s*;\s*rel="?next"?)"));
    const auto match = next.match(QString::fromUtf8(link));
    if (!match.hasMatch()) return {};
    const QUrl url = page.resolved(QUrl(match.captured(1)));
    if (url.scheme() != page.scheme() || url.host() != page.host() || url.port() != page.port()) {
        return {};
    }
    return url;
}

}  // namespace hearth::downloads
