#include "app/core/conversation_export.h"

#include <QFileInfo>

#include "app/core/history_json.h"

namespace hearth::core {
namespace {

QString extension(ExportFormat format) {
    return format == ExportFormat::Markdown ? QStringLiteral("md") : QStringLiteral("json");
}

}  // namespace

QString export_filter(ExportFormat format) {
    return format == ExportFormat::Markdown ? QStringLiteral("Markdown (*.md)")
                                            : QStringLiteral("JSON (*.json)");
}

QString export_filters() {
    return export_filter(ExportFormat::Markdown) + QStringLiteral(";;") +
           export_filter(ExportFormat::Json);
}

ExportTarget export_target(const QString& path, const QString& filter) {
    if (filter.isEmpty()) {
        const bool markdown =
            QFileInfo(path).suffix().compare(QLatin1String("md"), Qt::CaseInsensitive) == 0;
        return {path, markdown ? ExportFormat::Markdown : ExportFormat::Json};
    }
    const ExportFormat format = filter == export_filter(ExportFormat::Markdown)
                                    ? ExportFormat::Markdown
                                    : ExportFormat::Json;
    if (!QFileInfo(path).suffix().isEmpty()) return {path, format};
    return {path + QLatin1Char('.') + extension(format), format};
}

QByteArray export_bytes(const Conversation& conversation, ExportFormat format) {
    return format == ExportFormat::Markdown ? conversation_to_markdown(conversation).toUtf8()
                                            : conversation_to_json(conversation);
}

}  // namespace hearth::core
