#include "app/core/history_store.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>

#include "app/core/history_json.h"

namespace hearth::core {
namespace {

// Version 1: conversations and messages. Version 2: generation records, soft deletion and
// full-text search. Each step takes a database of the version before it to the next.
// A conversation's settings are one JSON object (history_json.h), so a new setting needs no
// step: rows written before it lack its key, which reads as the setting's default.
const char* const kVersion1[] = {
    "CREATE TABLE conversations(id INTEGER PRIMARY KEY, title TEXT NOT NULL, created INTEGER "
    "NOT NULL, updated INTEGER NOT NULL, settings TEXT NOT NULL DEFAULT '{}')",
    "CREATE TABLE messages(conversation INTEGER NOT NULL REFERENCES conversations(id) ON DELETE "
    "CASCADE, id INTEGER NOT NULL, parent INTEGER NOT NULL, role TEXT NOT NULL, text TEXT NOT "
    "NULL, created INTEGER NOT NULL, finished INTEGER NOT NULL, PRIMARY KEY(conversation, id))",
};
const char* const kVersion2[] = {
    "ALTER TABLE conversations ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0",
    "CREATE TABLE generations(conversation INTEGER NOT NULL, message INTEGER NOT NULL, "
    "model_file TEXT NOT NULL, model_sha256 TEXT NOT NULL, backend TEXT NOT NULL, seed TEXT NOT "
    "NULL, sampler TEXT NOT NULL, stats TEXT NOT NULL, PRIMARY KEY(conversation, message), "
    "FOREIGN KEY(conversation, message) REFERENCES messages(conversation, id) ON DELETE CASCADE)",
    "CREATE VIRTUAL TABLE messages_fts USING fts5(text, content='messages', "
    "content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER messages_insert AFTER INSERT ON messages BEGIN INSERT INTO "
    "messages_fts(rowid, text) VALUES (new.rowid, new.text); END",
    "CREATE TRIGGER messages_delete AFTER DELETE ON messages BEGIN INSERT INTO "
    "messages_fts(messages_fts, rowid, text) VALUES ('delete', old.rowid, old.text); END",
    "CREATE TRIGGER messages_update AFTER UPDATE OF text ON messages BEGIN INSERT INTO "
    "messages_fts(messages_fts, rowid, text) VALUES ('delete', old.rowid, old.text); INSERT INTO "
    "messages_fts(rowid, text) VALUES (new.rowid, new.text); END",
    "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')",
};

// Version 3: benchmark runs, and the model a conversation last used.
const char* const kVersion3[] = {
    "ALTER TABLE conversations ADD COLUMN model TEXT NOT NULL DEFAULT ''",
    "CREATE TABLE benchmarks(id INTEGER PRIMARY KEY, created INTEGER NOT NULL, model_file TEXT "
    "NOT NULL, model_sha256 TEXT NOT NULL, backend TEXT NOT NULL, machine TEXT NOT NULL, build "
    "TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, prompt_rate REAL NOT NULL, generated_tokens "
    "INTEGER NOT NULL, generation_rate REAL NOT NULL)",
};

// Version 4: an answer's reasoning, kept apart from its text (and out of full-text search).
const char* const kVersion4[] = {
    "ALTER TABLE messages ADD COLUMN reasoning TEXT NOT NULL DEFAULT ''",
};

// Version 5: a remote engine's answer names its connection (name and base URL) and the model
// the server answered with; a local answer leaves them empty (model_file names its model).
const char* const kVersion5[] = {
    "ALTER TABLE generations ADD COLUMN connection TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE generations ADD COLUMN connection_url TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE generations ADD COLUMN remote_model TEXT NOT NULL DEFAULT ''",
};

// QtSql binds a null QString as SQL NULL; every text column here is NOT NULL.
QString not_null(const QString& text) {
    return text.isNull() ? QStringLiteral("") : text;
}

qint64 now_ms() {
    return QDateTime::currentMSecsSinceEpoch();
}

QString json_text(const QJsonObject& object) {
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QJsonObject json_object(const QString& text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

// Each word of the user's query as a quoted prefix term: "caf"* matches café and cafeteria.
QString fts_query(const QString& query) {
    QStringList terms;
    for (QString word : query.split(' ', Qt::SkipEmptyParts)) {
        word.replace('"', QStringLiteral("\"\""));
        terms << QStringLiteral("\"%1\"*").arg(word);
    }
    return terms.join(' ');
}

}  // namespace

HistoryStore::HistoryStore(const QString& path, int up_to)
    : m_connection(QStringLiteral("history-") + QUuid::createUuid().toString(QUuid::Id128)) {
    if (open(path) && migrate(up_to)) {
        m_keeps_reasoning = schema_version() >= 4;
        m_keeps_remote = schema_version() >= 5;
    }
}

HistoryStore::~HistoryStore() {
    {
        auto database = QSqlDatabase::database(m_connection, false);
        if (database.isOpen()) database.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
}

void HistoryStore::fail(const QString& what, const QString& error) {
    if (!m_problem.isEmpty()) return;
    const QString lower = error.toLower();
    QString cause = error;
    if (lower.contains("locked") || lower.contains("busy")) {
        cause = QStringLiteral("another program has the database locked");
    } else if (lower.contains("readonly") || lower.contains("read-only")) {
        cause = QStringLiteral("the database is read-only");
    } else if (lower.contains("full")) {
        cause = QStringLiteral("the disk is full");
    } else if (lower.contains("disk i/o error")) {
        // A write the system refused: a full disk or quota, a file size limit, failing media.
        cause = QStringLiteral("the disk refused the write (it may be full or failing)");
    } else if (lower.contains("not a database") || lower.contains("malformed") ||
               lower.contains("corrupt")) {
        cause = QStringLiteral("the database file is corrupt (it was left untouched)");
    }
    m_problem = QStringLiteral(
                    "History is not being saved: %1 (%2: %3). Conversations stay "
                    "in memory until Hearth closes.")
                    .arg(cause, what, error);
}

bool HistoryStore::open(const QString& path) {
    auto database = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    database.setDatabaseName(path);
    database.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=1000"));
    if (!database.open()) {
        fail(QStringLiteral("opening ") + path, database.lastError().text());
        return false;
    }
    // A file that is not a database fails here, before anything is written to it.
    return execute(QStringLiteral("PRAGMA journal_mode=WAL")) &&
           execute(QStringLiteral("PRAGMA foreign_keys=ON")) &&
           execute(QStringLiteral("PRAGMA synchronous=NORMAL"));
}

bool HistoryStore::execute(const QString& sql) {
    QSqlQuery query(QSqlDatabase::database(m_connection));
    if (query.exec(sql)) return true;
    fail(sql.section(' ', 0, 2), query.lastError().text());
    return false;
}

int HistoryStore::schema_version() const {
    QSqlQuery query(QSqlDatabase::database(m_connection));
    return query.exec(QStringLiteral("PRAGMA user_version")) && query.next()
               ? query.value(0).toInt()
               : -1;
}

bool HistoryStore::migrate(int up_to) {
    const int version = schema_version();
    if (version > kSchemaVersion) {
        fail(QStringLiteral("migrating"), QStringLiteral("the database was made by a newer Hearth "
                                                         "(schema %1)")
                                              .arg(version));
        return false;
    }
    auto database = QSqlDatabase::database(m_connection);
    const auto step = [&](int to, const auto& statements) {
        if (version >= to || to > up_to) return true;
        database.transaction();
        for (const char* statement : statements) {
            if (!execute(QString::fromLatin1(statement))) {
                database.rollback();
                return false;
            }
        }
        if (!execute(QStringLiteral("PRAGMA user_version=%1").arg(to))) {
            database.rollback();
            return false;
        }
        return database.commit();
    };
    return step(1, kVersion1) && step(2, kVersion2) && step(3, kVersion3) && step(4, kVersion4) &&
           step(5, kVersion5);
}

std::vector<StoredConversation> HistoryStore::conversations() const {
    std::vector<StoredConversation> list;
    QSqlQuery query(QSqlDatabase::database(m_connection));
    if (!query.exec(QStringLiteral("SELECT id, title, updated, model FROM conversations WHERE "
                                   "deleted = 0 ORDER BY updated DESC, id DESC"))) {
        return list;
    }
    while (query.next()) {
        list.push_back({query.value(0).toInt(), query.value(1).toString(),
                        query.value(2).toLongLong(), query.value(3).toString()});
    }
    return list;
}

std::optional<Conversation> HistoryStore::load(int id) const {
    const auto database = QSqlDatabase::database(m_connection);
    QSqlQuery header(database);
    header.prepare(
        QStringLiteral("SELECT title, created, settings FROM conversations WHERE id = ?"));
    header.addBindValue(id);
    if (!header.exec() || !header.next()) return std::nullopt;
    Conversation conversation(id, header.value(0).toString());
    conversation.set_created_ms(header.value(1).toLongLong());
    conversation.settings() = settings_from_json(json_object(header.value(2).toString()));

    QSqlQuery messages(database);
    messages.prepare(
        QStringLiteral(
            "SELECT m.id, m.parent, m.role, m.text, m.created, m.finished, g.model_file, "
            "g.model_sha256, g.backend, g.seed, g.sampler, g.stats, %1, %2 FROM messages m LEFT "
            "JOIN generations g ON g.conversation = m.conversation AND g.message = m.id WHERE "
            "m.conversation = ? ORDER BY m.id")
            .arg(m_keeps_reasoning ? QStringLiteral("m.reasoning") : QStringLiteral("''"),
                 m_keeps_remote ? QStringLiteral("g.connection, g.connection_url, g.remote_model")
                                : QStringLiteral("'', '', ''")));
    messages.addBindValue(id);
    if (!messages.exec()) return std::nullopt;
    while (messages.next()) {
        Message message;
        message.id = messages.value(0).toInt();
        message.parent = messages.value(1).toInt();
        message.role = messages.value(2).toString();
        message.text = messages.value(3).toString();
        message.created_ms = messages.value(4).toLongLong();
        message.finished = messages.value(5).toBool();
        message.reasoning = messages.value(12).toString();
        if (!messages.value(6).isNull()) {
            GenerationRecord record;
            record.model_file = messages.value(6).toString();
            record.model_sha256 = messages.value(7).toString();
            record.backend = messages.value(8).toString();
            record.seed = messages.value(9).toString().toULongLong();
            record.sampler = sampler_from_json(json_object(messages.value(10).toString()));
            record.stats = stats_from_json(json_object(messages.value(11).toString()));
            record.connection = messages.value(13).toString();
            record.connection_url = messages.value(14).toString();
            record.remote_model = messages.value(15).toString();
            message.generation = record;
        }
        conversation.restore(std::move(message));
    }
    return conversation;
}

int HistoryStore::create(const Conversation& conversation) {
    if (!available()) return 0;
    auto database = QSqlDatabase::database(m_connection);
    QSqlQuery query(database);
    query.prepare(QStringLiteral(
        "INSERT INTO conversations(title, created, updated, settings) VALUES (?, ?, ?, ?)"));
    query.addBindValue(not_null(conversation.title()));
    query.addBindValue(conversation.created_ms());
    query.addBindValue(now_ms());
    query.addBindValue(json_text(settings_to_json(conversation.settings())));
    if (!query.exec()) {
        fail(QStringLiteral("creating a conversation"), query.lastError().text());
        return 0;
    }
    return query.lastInsertId().toInt();
}

bool HistoryStore::save_header(const Conversation& conversation) {
    if (!available()) return false;
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(QStringLiteral(
        "UPDATE conversations SET title = ?, settings = ?, updated = ? WHERE id = ?"));
    query.addBindValue(not_null(conversation.title()));
    query.addBindValue(json_text(settings_to_json(conversation.settings())));
    query.addBindValue(now_ms());
    query.addBindValue(conversation.id());
    if (query.exec()) return true;
    fail(QStringLiteral("saving a conversation"), query.lastError().text());
    return false;
}

bool HistoryStore::save_message(int conversation, const Message& message) {
    if (!available()) return false;
    auto database = QSqlDatabase::database(m_connection);
    database.transaction();
    QSqlQuery query(database);
    query.prepare(
        QStringLiteral("INSERT INTO messages(conversation, id, parent, role, text, created, "
                       "finished%1) VALUES "
                       "(?, ?, ?, ?, ?, ?, ?%2) ON CONFLICT(conversation, id) DO UPDATE SET text = "
                       "excluded.text, finished = excluded.finished%3")
            .arg(m_keeps_reasoning ? QStringLiteral(", reasoning") : QString(),
                 m_keeps_reasoning ? QStringLiteral(", ?") : QString(),
                 m_keeps_reasoning ? QStringLiteral(", reasoning = excluded.reasoning")
                                   : QString()));
    query.addBindValue(conversation);
    query.addBindValue(message.id);
    query.addBindValue(message.parent);
    query.addBindValue(message.role);
    // A null QString binds as SQL NULL: an answer that has not begun is an empty text.
    query.addBindValue(not_null(message.text));
    query.addBindValue(message.created_ms);
    query.addBindValue(message.finished ? 1 : 0);
    if (m_keeps_reasoning) query.addBindValue(not_null(message.reasoning));
    bool ok = query.exec();
    QString error = ok ? QString() : query.lastError().text();
    if (ok && message.generation) {
        const auto& record = *message.generation;
        QSqlQuery generation(database);
        generation.prepare(
            QStringLiteral("INSERT OR REPLACE INTO generations(conversation, message, model_file, "
                           "model_sha256, backend, seed, sampler, stats%1) VALUES (?, ?, ?, ?, ?, "
                           "?, ?, ?%2)")
                .arg(m_keeps_remote ? QStringLiteral(", connection, connection_url, remote_model")
                                    : QString(),
                     m_keeps_remote ? QStringLiteral(", ?, ?, ?") : QString()));
        for (const QVariant& value :
             {QVariant(conversation), QVariant(message.id), QVariant(not_null(record.model_file)),
              QVariant(not_null(record.model_sha256)), QVariant(not_null(record.backend)),
              QVariant(QString::number(record.seed)),
              QVariant(json_text(sampler_to_json(record.sampler))),
              QVariant(json_text(stats_to_json(record.stats)))}) {
            generation.addBindValue(value);
        }
        if (m_keeps_remote) {
            for (const QString& text :
                 {record.connection, record.connection_url, record.remote_model}) {
                generation.addBindValue(not_null(text));
            }
        }
        ok = generation.exec();
        if (!ok) error = generation.lastError().text();
    }
    if (ok) {
        QSqlQuery touch(database);
        const bool answered = message.generation.has_value();
        touch.prepare(answered
                          ? QStringLiteral("UPDATE conversations SET updated = ?, model = ? "
                                           "WHERE id = ?")
                          : QStringLiteral("UPDATE conversations SET updated = ? WHERE id = ?"));
        touch.addBindValue(now_ms());
        if (answered) {
            const GenerationRecord& record = *message.generation;
            touch.addBindValue(not_null(record.remote() ? record.remote_model : record.model_file));
        }
        touch.addBindValue(conversation);
        ok = touch.exec();
        if (!ok) error = touch.lastError().text();
    }
    if (ok && database.commit()) return true;
    if (error.isEmpty()) error = database.lastError().text();
    database.rollback();
    fail(QStringLiteral("saving a message"), error);
    return false;
}

bool HistoryStore::set_deleted(int conversation, bool deleted) {
    if (!available()) return false;
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(QStringLiteral("UPDATE conversations SET deleted = ? WHERE id = ?"));
    query.addBindValue(deleted ? 1 : 0);
    query.addBindValue(conversation);
    if (query.exec()) return true;
    fail(QStringLiteral("deleting a conversation"), query.lastError().text());
    return false;
}

bool HistoryStore::purge_deleted() {
    return available() && execute(QStringLiteral("DELETE FROM conversations WHERE deleted = 1"));
}

std::vector<SearchHit> HistoryStore::search(const QString& text, int limit) const {
    std::vector<SearchHit> hits;
    const QString match = fts_query(text);
    if (match.isEmpty()) return hits;
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(QStringLiteral(
        "SELECT m.conversation, m.id, c.title, snippet(messages_fts, 0, '<b>', '</b>', '…', 12) "
        "FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid JOIN conversations c "
        "ON c.id = m.conversation WHERE messages_fts MATCH ? AND c.deleted = 0 ORDER BY "
        "bm25(messages_fts) LIMIT ?"));
    query.addBindValue(match);
    query.addBindValue(limit);
    if (!query.exec()) return hits;
    while (query.next()) {
        hits.push_back({query.value(0).toInt(), query.value(1).toInt(), query.value(2).toString(),
                        query.value(3).toString()});
    }
    return hits;
}

bool HistoryStore::save_benchmark(const BenchmarkResult& result) {
    if (!available()) return false;
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(QStringLiteral(
        "INSERT INTO benchmarks(created, model_file, model_sha256, backend, machine, build, "
        "prompt_tokens, prompt_rate, generated_tokens, generation_rate) VALUES (?, ?, ?, ?, ?, ?, "
        "?, ?, ?, ?)"));
    for (const QVariant& value :
         {QVariant(result.created_ms), QVariant(not_null(result.model_file)),
          QVariant(not_null(result.model_sha256)), QVariant(not_null(result.backend)),
          QVariant(not_null(result.machine)), QVariant(not_null(result.build)),
          QVariant(result.prompt_tokens), QVariant(result.prompt_tokens_per_second),
          QVariant(result.generated_tokens), QVariant(result.generation_tokens_per_second)}) {
        query.addBindValue(value);
    }
    if (query.exec()) return true;
    fail(QStringLiteral("saving a benchmark"), query.lastError().text());
    return false;
}

// Runs a query with one bound value, the row limit, turning each row into an item.
template <typename Item, typename Read>
std::vector<Item> HistoryStore::select(const QString& sql, int limit, const Read& read) const {
    std::vector<Item> items;
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(sql);
    query.addBindValue(limit);
    if (!query.exec()) return items;
    while (query.next()) items.push_back(read(query));
    return items;
}

std::vector<BenchmarkResult> HistoryStore::benchmarks(int limit) const {
    return select<BenchmarkResult>(
        QStringLiteral("SELECT created, model_file, model_sha256, backend, machine, build, "
                       "prompt_tokens, prompt_rate, generated_tokens, generation_rate FROM "
                       "benchmarks ORDER BY created DESC, id DESC LIMIT ?"),
        limit, [](const QSqlQuery& row) {
            return BenchmarkResult{row.value(0).toLongLong(), row.value(1).toString(),
                                   row.value(2).toString(),   row.value(3).toString(),
                                   row.value(4).toString(),   row.value(5).toString(),
                                   row.value(6).toInt(),      row.value(7).toDouble(),
                                   row.value(8).toInt(),      row.value(9).toDouble()};
        });
}

std::vector<GenerationSummary> HistoryStore::generations(int limit) const {
    return select<GenerationSummary>(
        QStringLiteral("SELECT m.created, g.model_file, g.backend, g.stats, %1 FROM generations g "
                       "JOIN messages m ON m.conversation = g.conversation AND m.id = g.message "
                       "ORDER BY m.created DESC LIMIT ?")
            .arg(m_keeps_remote ? QStringLiteral("g.connection, g.remote_model")
                                : QStringLiteral("'', ''")),
        limit, [](const QSqlQuery& row) {
            return GenerationSummary{
                row.value(0).toLongLong(), row.value(1).toString(),
                row.value(2).toString(),   stats_from_json(json_object(row.value(3).toString())),
                row.value(4).toString(),   row.value(5).toString()};
        });
}

}  // namespace hearth::core
