// What Hugging Face's Hub answers, as the hub test server sends it and the fuzz seeds hold it:
// a repository's files with their checksums, the model search's entry for a repository, the
// entries of its tree, and the Link header that pages the tree.
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hearth::test {

struct HubTestFile {
    std::string path;  // in the repository
    QByteArray bytes;
    std::string sha256;   // hex, as the tree lists it (of the real bytes)
    std::string git_oid;  // hex, the git blob id
};

struct HubTestRepository {
    std::string id;  // "owner/name"
    std::vector<HubTestFile> files;
    bool gated = false;  // 401 GatedRepo unless the request carries the server's token
    std::optional<long long> downloads;  // the search answer gives no count when nullopt
};

// A file served from disk under `path`.
HubTestFile hub_file(const std::string& path, const std::filesystem::path& source);
// A file of `bytes`, with its checksums.
HubTestFile hub_file(const std::string& path, QByteArray bytes);

// The repository as one result of GET /api/models?search=.
QJsonObject hub_search_entry(const HubTestRepository& repository);
// Every entry of GET /api/models/REPO/tree/main?recursive=true, before paging: each folder once,
// then the files.
QJsonArray hub_tree_entries(const HubTestRepository& repository);
// The Link header of a tree page whose next page starts at entry `cursor`; `page_url` is the
// tree's URL without its query.
std::string hub_tree_link(const std::string& page_url, int cursor);

}  // namespace hearth::test
