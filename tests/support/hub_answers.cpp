#include "tests/support/hub_answers.h"

#include <QCryptographicHash>
#include <QFile>

#include <algorithm>
#include <stdexcept>

namespace hearth::test {
namespace {

std::string hex_hash(const QByteArray& bytes, QCryptographicHash::Algorithm algorithm) {
    return QCryptographicHash::hash(bytes, algorithm).toHex().toStdString();
}

}  // namespace

HubTestFile hub_file(const std::string& path, const std::filesystem::path& source) {
    QFile in(QString::fromStdString(source.string()));
    if (!in.open(QIODevice::ReadOnly)) throw std::runtime_error("cannot read " + source.string());
    return hub_file(path, in.readAll());
}

HubTestFile hub_file(const std::string& path, QByteArray bytes) {
    HubTestFile file{path, std::move(bytes), {}, {}};
    file.sha256 = hex_hash(file.bytes, QCryptographicHash::Sha256);
    const QByteArray blob = "blob " + QByteArray::number(file.bytes.size()) + '\0' + file.bytes;
    file.git_oid = hex_hash(blob, QCryptographicHash::Sha1);
    return file;
}

QJsonObject hub_search_entry(const HubTestRepository& repository) {
    const auto id = QString::fromStdString(repository.id);
    QJsonObject entry{
        {"_id",
         QString::fromLatin1(
             QCryptographicHash::hash(id.toUtf8(), QCryptographicHash::Md5).toHex().left(24))},
        {"id", id},
        {"likes", 3},
        {"trendingScore", 0},
        {"private", false},
        {"tags", QJsonArray{"gguf", "llama", "text-generation"}},
        {"pipeline_tag", "text-generation"},
        {"library_name", "gguf"},
        {"createdAt", "2024-05-01T12:00:00.000Z"},
        {"modelId", id}};
    // The Hub leaves out what it does not count; a downloader must not read that as zero.
    if (repository.downloads) entry.insert("downloads", *repository.downloads);
    return entry;
}

QJsonArray hub_tree_entries(const HubTestRepository& repository) {
    QJsonArray entries;
    std::vector<std::string> folders;
    for (const auto& file : repository.files) {
        const auto slash = file.path.rfind('/');
        if (slash != std::string::npos && std::find(folders.begin(), folders.end(),
                                                    file.path.substr(0, slash)) == folders.end()) {
            folders.push_back(file.path.substr(0, slash));
            entries.append(QJsonObject{{"type", "directory"},
                                       {"oid", QString(40, '0')},
                                       {"size", 0},
                                       {"path", QString::fromStdString(folders.back())}});
        }
    }
    for (const auto& file : repository.files) {
        const auto size = static_cast<qint64>(file.bytes.size());
        entries.append(QJsonObject{{"type", "file"},
                                   {"oid", QString::fromStdString(file.git_oid)},
                                   {"size", size},
                                   {"path", QString::fromStdString(file.path)},
                                   {"lfs", QJsonObject{{"oid", QString::fromStdString(file.sha256)},
                                                       {"size", size},
                                                       {"pointerSize", 135}}}});
    }
    return entries;
}

std::string hub_tree_link(const std::string& page_url, int cursor) {
    return "<" + page_url + "?recursive=true&cursor=" + std::to_string(cursor) + ">; rel=\"next\"";
}

}  // namespace hearth::test
