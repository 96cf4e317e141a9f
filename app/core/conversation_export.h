// Where an exported conversation goes and in which format: the format the save dialog's chosen
// filter names, and its extension added when the user typed none (a file "chat" chosen under
// "Markdown (*.md)" is chat.md, in Markdown).
#pragma once

#include <QByteArray>
#include <QString>

#include "app/core/conversation.h"

namespace hearth::core {

enum class ExportFormat { Markdown, Json };

// The save dialog's filters, Markdown first, and the filter of each format.
QString export_filters();
QString export_filter(ExportFormat format);

struct ExportTarget {
    QString path;
    ExportFormat format = ExportFormat::Json;
};

// `path` as typed under `filter` (one of export_filters()). With no filter, the extension
// decides (".md" is Markdown, anything else JSON) and nothing is added.
ExportTarget export_target(const QString& path, const QString& filter);

QByteArray export_bytes(const Conversation& conversation, ExportFormat format);

}  // namespace hearth::core
