#include "app/core/downloads/gguf_choices.h"

#include <QRegularExpression>

#include <algorithm>
#include <map>

namespace hearth::downloads {
namespace {

// llama.cpp's split naming: gguf-split writes PREFIX-%05d-of-%05d.gguf.
const QRegularExpression& split_pattern() {
    static const QRegularExpression pattern(QStringLiteral(R"(^(.*)-(\d{5})-of-(\d{5})\.gguf$)"),
                                            QRegularExpression::CaseInsensitiveOption);
    return pattern;
}

QString file_name_of(const QString& path) {
    return path.section('/', -1);
}

}  // namespace

qint64 GgufChoice::total_bytes() const {
    qint64 total = 0;
    for (const auto& part : parts) total += part.size;
    return total;
}

QString quantization_in_name(const QString& file_name) {
    // The quantiser's labels as llama.cpp's tools write them into file names.
    static const QRegularExpression label(
        QStringLiteral(
            R"((?:^|[-_.])((?:I?Q\d(?:_[A-Z0-9]+)*)|BF16|F16|F32|MXFP4(?:_MOE)?)(?=[-_.]|$))"),
        QRegularExpression::CaseInsensitiveOption);
    QString found;
    auto matches = label.globalMatch(file_name);
    while (matches.hasNext()) found = matches.next().captured(1);
    return found.toUpper();
}

std::vector<GgufChoice> gguf_choices(const std::vector<HubFile>& files) {
    std::map<QString, GgufChoice> by_name;
    for (const auto& file : files) {
        if (!file.path.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)) continue;
        const auto split = split_pattern().match(file.path);
        const QString path_name = split.hasMatch() ? split.captured(1) : file.path.chopped(5);
        auto& choice = by_name[path_name];
        choice.name = file_name_of(path_name);
        choice.quantization = quantization_in_name(choice.name);
        choice.declared_parts = split.hasMatch() ? split.captured(3).toInt() : 1;
        choice.parts.push_back(file);
    }
    std::vector<GgufChoice> choices;
    for (auto& [name, choice] : by_name) {
        std::sort(choice.parts.begin(), choice.parts.end(),
                  [](const auto& a, const auto& b) { return a.path < b.path; });
        choices.push_back(std::move(choice));
    }
    return choices;
}

const GgufChoice* find_choice(const std::vector<GgufChoice>& choices, const QString& file) {
    for (const auto& choice : choices) {
        if (choice.name == file || choice.name + QLatin1String(".gguf") == file) return &choice;
        for (const auto& part : choice.parts) {
            if (part.path == file || file_name_of(part.path) == file) return &choice;
        }
    }
    return nullptr;
}

}  // namespace hearth::downloads
