// The offline history: one SQLite database (WAL) holding conversations, their messages (with
// branches) and how each answer was made, searchable with FTS5. Every write is its own small
// transaction, so a crash loses at most what was not yet written and never a finished message.
// When the database cannot be used (locked, read-only, full, corrupt), the store says why once
// and stops writing; the window keeps the conversations in memory, and the file is left as it
// was, so nothing already stored is lost.
#pragma once

#include <QString>

#include <optional>
#include <vector>

#include "app/core/benchmark_result.h"
#include "app/core/conversation.h"

namespace hearth::core {

struct StoredConversation {
    int id = 0;
    QString title;
    qint64 updated_ms = 0;
    QString model;  // the model file of its latest answer (a remote model's id)
};

struct SearchHit {
    int conversation = 0;
    int message = 0;
    QString title;
    QString snippet;  // with <b>…</b> around the matches
};

// One past answer, for the dashboard's history view.
struct GenerationSummary {
    qint64 created_ms = 0;
    QString model_file;
    QString backend;
    GenerationStats stats;
    QString connection;    // a remote answer's connection; empty for a local one
    QString remote_model;  // the model the server answered with; empty for a local one
};

class HistoryStore final {
public:
    static constexpr int kSchemaVersion = 5;

    // Opens (creating or migrating) the database at `path`. `up_to` stops migrations at an
    // earlier version: only tests of the migrations use it.
    explicit HistoryStore(const QString& path, int up_to = kSchemaVersion);
    ~HistoryStore();
    HistoryStore(const HistoryStore&) = delete;
    HistoryStore& operator=(const HistoryStore&) = delete;

    bool available() const { return m_problem.isEmpty(); }
    // Why the history is not being saved, for the user; empty while all is well.
    const QString& problem() const { return m_problem; }

    std::vector<StoredConversation> conversations() const;  // most recently updated first
    std::optional<Conversation> load(int id) const;

    // Writes return false (and set problem()) when the database refuses them.
    int create(const Conversation& conversation);        // 0 when it could not be stored
    bool save_header(const Conversation& conversation);  // title and settings
    bool save_message(int conversation, const Message& message);
    // Deleting hides a conversation until purge(), so it can be undone until the app closes.
    bool set_deleted(int conversation, bool deleted);
    bool purge_deleted();

    // Prefix search over every message of every branch, diacritics ignored.
    std::vector<SearchHit> search(const QString& query, int limit = 50) const;

    bool save_benchmark(const BenchmarkResult& result);
    std::vector<BenchmarkResult> benchmarks(int limit = 50) const;      // newest first
    std::vector<GenerationSummary> generations(int limit = 200) const;  // newest first

    int schema_version() const;

private:
    bool open(const QString& path);
    bool migrate(int up_to);
    bool execute(const QString& sql);
    void fail(const QString& what, const QString& error);
    template <typename Item, typename Read>
    std::vector<Item> select(const QString& sql, int limit, const Read& read) const;

    QString m_connection;
    QString m_problem;
    // Whether the messages table has the reasoning column (version 4): a store that tests stop
    // at an earlier version writes and reads what that version held.
    bool m_keeps_reasoning = false;
    // Whether the generations table has the remote answer's columns (version 5).
    bool m_keeps_remote = false;
};

}  // namespace hearth::core
