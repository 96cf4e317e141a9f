#include "app/core/downloads/repository_reference.h"

#include <QRegularExpression>
#include <QUrl>

namespace hearth::downloads {
namespace {

bool valid_part(const QString& part) {
    static const QRegularExpression allowed(QStringLiteral(R"(^[A-Za-z0-9][A-Za-z0-9._-]*$)"));
    return allowed.match(part).hasMatch();
}

std::optional<RepositoryReference> from_parts(const QString& owner, const QString& name,
                                              const QString& file) {
    if (!valid_part(owner) || !valid_part(name) || file.contains(QLatin1String(".."))) {
        return std::nullopt;
    }
    return RepositoryReference{owner + '/' + name, file};
}

// https://huggingface.co/OWNER/NAME[/blob|resolve/REVISION/FILE...]
std::optional<RepositoryReference> from_address(const QUrl& url) {
    const QStringList parts = url.path().split('/', Qt::SkipEmptyParts);
    if (parts.size() < 2) return std::nullopt;
    QString file;
    if (parts.size() >= 5 &&
        (parts[2] == QLatin1String("blob") || parts[2] == QLatin1String("resolve"))) {
        file = parts.mid(4).join('/');
    }
    return from_parts(parts[0], parts[1], file);
}

}  // namespace

std::optional<RepositoryReference> parse_repository_reference(const QString& text) {
    const QString trimmed = text.trimmed();
    if (trimmed.startsWith(QLatin1String("http://")) ||
        trimmed.startsWith(QLatin1String("https://"))) {
        return from_address(QUrl(trimmed));
    }
    const QString repository = trimmed.section(':', 0, 0);
    const QString file = trimmed.section(':', 1);
    const QStringList parts = repository.split('/');
    if (parts.size() != 2) return std::nullopt;
    return from_parts(parts[0], parts[1], file);
}

}  // namespace hearth::downloads
