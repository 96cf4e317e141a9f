// The history on a real SQLite file: writing, reading, branches, search, export and import,
// migrations, a writer killed mid-answer, and files that cannot be used.
#include "app/core/history_store.h"

#include <gtest/gtest.h>

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>

#include <algorithm>
#include <optional>

#include "app/core/history_json.h"
#include "app/core/streaming_saver.h"
#include "tests/support/temp_files.h"

namespace hearth::core {
namespace {

class HistoryStoreTest : public testing::Test {
protected:
    QString path(const char* name = "history.sqlite") const {
        return QString::fromStdString((m_directory.path() / name).string());
    }
    // A conversation with a regenerated answer (two branches) and a generation record.
    static Conversation sample() {
        Conversation conversation(0, "Café talk");
        conversation.settings().system_prompt = "Be kind.";
        conversation.settings().sampler.seed = 18446744073709551557ull;
        const int question = conversation.add(-1, "user", "Where is the café?");
        const int answer = conversation.add(question, "assistant", "Around the **corner**.");
        conversation.find(answer)->generation = GenerationRecord{.model_file = "/models/x.gguf",
                                                                 .model_sha256 = "ab12",
                                                                 .backend = "cpu",
                                                                 .seed = 42,
                                                                 .sampler = {},
                                                                 .stats = {}};
        conversation.find(answer)->generation->stats.generated_tokens = 5;
        conversation.find(answer)->generation->stats.token_times_ns = {1, 2, 3, 4, 5};
        conversation.add(question, "assistant", "Next to the naïve bakery.");
        return conversation;
    }
    static void save_all(HistoryStore& store, Conversation& conversation) {
        const int id = store.create(conversation);
        ASSERT_GT(id, 0);
        Conversation stored(id, conversation.title());
        stored.settings() = conversation.settings();
        stored.set_created_ms(conversation.created_ms());
        for (const auto& message : conversation.messages()) {
            ASSERT_TRUE(store.save_message(id, message)) << store.problem().toStdString();
            stored.restore(message);
        }
        conversation = stored;
    }

    // The one conversation a writer child stored: its finished exchange, the follow-up
    // question and, if it got that far, the answer it was streaming
    // (tests/app/core/streaming_exchange.h).
    std::optional<Conversation> written_conversation() const {
        HistoryStore store(path());
        EXPECT_TRUE(store.available()) << store.problem().toStdString();
        const auto list = store.conversations();
        if (list.size() != 1u) {
            ADD_FAILURE() << list.size() << " conversations stored";
            return std::nullopt;
        }
        auto conversation = store.load(list[0].id);
        if (!conversation || conversation->messages().size() < 3u) {
            ADD_FAILURE() << "the finished exchange and its follow-up are not all there";
            return std::nullopt;
        }
        EXPECT_EQ(conversation->find(1)->text, "Tell me a long story.");
        EXPECT_EQ(conversation->find(2)->text, "A finished answer.");
        EXPECT_TRUE(conversation->find(2)->finished);
        EXPECT_EQ(conversation->find(3)->text, "Another one, please.");
        return conversation;
    }

    // The columns of `table`, read past the store.
    QStringList columns_of(const char* table) const {
        QStringList names;
        {
            auto database = QSqlDatabase::addDatabase("QSQLITE", "columns");
            database.setDatabaseName(path());
            QSqlQuery columns(database);
            if (database.open() &&
                columns.exec(QStringLiteral("SELECT name FROM pragma_table_info('%1')")
                                 .arg(QLatin1String(table)))) {
                while (columns.next()) names << columns.value(0).toString();
            }
        }
        QSqlDatabase::removeDatabase("columns");
        return names;
    }
    QStringList message_columns() const { return columns_of("messages"); }

    // `conversation` from a store that migrated the file to the latest version: as it was.
    static std::optional<Conversation> load_migrated(const HistoryStore& store,
                                                     const Conversation& conversation) {
        EXPECT_TRUE(store.available()) << store.problem().toStdString();
        EXPECT_EQ(store.schema_version(), HistoryStore::kSchemaVersion);
        auto loaded = store.load(conversation.id());
        if (loaded) {
            EXPECT_EQ(conversation_to_json(*loaded), conversation_to_json(conversation));
        }
        return loaded;
    }

    // sample() with its second answer made by a remote engine.
    static Conversation with_remote_answer() {
        auto conversation = sample();
        Message& remote = *conversation.find(3);
        remote.generation = GenerationRecord{.backend = "remote", .seed = 9};
        remote.generation->stats.generated_tokens = 4;
        remote.generation->stats.prompt_tokens = 31;  // the server's usage
        remote.generation->stats.token_times_ns = {7, 8, 9, 10};
        remote.generation->connection = "gpu-box";
        remote.generation->connection_url = "http://gpu-box:8000/v1";
        remote.generation->remote_model = "llama-70b";
        return conversation;
    }

    test::TempDirectory m_directory;
};

TEST_F(HistoryStoreTest, StoresAndReadsBackConversationsWithTheirBranches) {
    auto conversation = sample();
    {
        HistoryStore store(path());
        ASSERT_TRUE(store.available()) << store.problem().toStdString();
        EXPECT_EQ(store.schema_version(), HistoryStore::kSchemaVersion);
        save_all(store, conversation);
    }
    HistoryStore reopened(path());
    const auto list = reopened.conversations();
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0].title, "Café talk");
    EXPECT_EQ(list[0].model, "/models/x.gguf");
    const auto loaded = reopened.load(list[0].id);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(conversation_to_json(*loaded), conversation_to_json(conversation));
    EXPECT_EQ(loaded->siblings(2), (std::vector<int>{2, 3}));
    EXPECT_EQ(loaded->find(2)->generation->seed, 42u);
    EXPECT_EQ(loaded->settings().sampler.seed, 18446744073709551557ull);
    // The database really is in WAL mode.
    QFile wal(path() + "-wal");
    EXPECT_TRUE(wal.exists());
}

TEST_F(HistoryStoreTest, SearchFindsPrefixesAcrossBranchesIgnoringDiacritics) {
    HistoryStore store(path());
    auto conversation = sample();
    save_all(store, conversation);
    auto hits = store.search("cafe");  // matches "café"
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].message, 1);
    EXPECT_TRUE(hits[0].snippet.contains("<b>café</b>")) << hits[0].snippet.toStdString();
    hits = store.search("naive bak");  // both words, the second a prefix, in the other branch
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].message, 3);
    EXPECT_EQ(hits[0].title, "Café talk");
    EXPECT_TRUE(store.search("\"unbalanced").empty());  // quotes in queries are harmless
    // Updated text is what is searched.
    auto message = *conversation.find(3);
    message.text = "Replaced entirely.";
    store.save_message(conversation.id(), message);
    EXPECT_TRUE(store.search("bakery").empty());
    EXPECT_EQ(store.search("replaced").size(), 1u);
}

TEST_F(HistoryStoreTest, DeletingCanBeUndoneUntilPurged) {
    HistoryStore store(path());
    auto conversation = sample();
    save_all(store, conversation);
    store.set_deleted(conversation.id(), true);
    EXPECT_TRUE(store.conversations().empty());
    EXPECT_TRUE(store.search("cafe").empty());
    store.set_deleted(conversation.id(), false);
    EXPECT_EQ(store.conversations().size(), 1u);
    store.set_deleted(conversation.id(), true);
    store.purge_deleted();
    EXPECT_FALSE(store.load(conversation.id()));
    store.set_deleted(conversation.id(), false);
    EXPECT_TRUE(store.conversations().empty());
}

TEST_F(HistoryStoreTest, ExportAndImportRoundTripExactly) {
    const auto conversation = sample();
    const QByteArray exported = conversation_to_json(conversation);
    const auto imported = conversation_from_json(exported);
    EXPECT_EQ(conversation_to_json(imported), exported);
    const QString markdown = conversation_to_markdown(conversation);
    EXPECT_TRUE(markdown.startsWith("# Café talk\n"));
    EXPECT_TRUE(markdown.contains("## You\n\nWhere is the café?"));
    EXPECT_TRUE(markdown.contains("Next to the naïve bakery."));  // the visible branch
    EXPECT_FALSE(markdown.contains("corner"));
    EXPECT_THROW(conversation_from_json("{\"format\": \"other\"}"), std::invalid_argument);
    EXPECT_THROW(conversation_from_json("not json"), std::invalid_argument);
    QByteArray dangling = exported;
    dangling.replace("\"parent\": 1", "\"parent\": 9");
    EXPECT_THROW(conversation_from_json(dangling), std::invalid_argument);
}

// A database written by the first schema (created here with its own SQL) opens, migrates and
// keeps its contents, which then become searchable.
TEST_F(HistoryStoreTest, MigratesFromEveryEarlierVersion) {
    {
        auto database = QSqlDatabase::addDatabase("QSQLITE", "version1");
        database.setDatabaseName(path());
        ASSERT_TRUE(database.open());
        QSqlQuery query(database);
        for (const char* sql : {
                 "CREATE TABLE conversations(id INTEGER PRIMARY KEY, title TEXT NOT NULL, created "
                 "INTEGER NOT NULL, updated INTEGER NOT NULL, settings TEXT NOT NULL DEFAULT '{}')",
                 "CREATE TABLE messages(conversation INTEGER NOT NULL REFERENCES conversations(id) "
                 "ON DELETE CASCADE, id INTEGER NOT NULL, parent INTEGER NOT NULL, role TEXT NOT "
                 "NULL, text TEXT NOT NULL, created INTEGER NOT NULL, finished INTEGER NOT NULL, "
                 "PRIMARY KEY(conversation, id))",
                 "INSERT INTO conversations VALUES (1, 'Old one', 1, 2, '{}')",
                 "INSERT INTO messages VALUES (1, 1, -1, 'user', 'An old question about "
                 "résumés', 1, 1)",
                 "PRAGMA user_version=1",
             }) {
            ASSERT_TRUE(query.exec(sql)) << sql;
        }
        database.close();
    }
    QSqlDatabase::removeDatabase("version1");
    HistoryStore store(path());
    ASSERT_TRUE(store.available()) << store.problem().toStdString();
    EXPECT_EQ(store.schema_version(), HistoryStore::kSchemaVersion);
    const auto loaded = store.load(1);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->find(1)->text, "An old question about résumés");
    EXPECT_EQ(store.search("resume").size(), 1u);
}

// Version 2 as the version-2 store made it (the same statements, stopped there), with a stored
// answer: it migrates to the latest, keeps the answer and gains benchmark storage.
TEST_F(HistoryStoreTest, MigratesFromVersionTwo) {
    auto conversation = sample();
    // What version 2 could store: generation records came with version 3's model column.
    for (const auto& message : conversation.messages()) {
        const_cast<Message*>(&message)->generation.reset();
    }
    {
        HistoryStore version2(path(), 2);
        ASSERT_EQ(version2.schema_version(), 2);
        save_all(version2, conversation);
    }
    HistoryStore store(path());
    ASSERT_TRUE(store.available()) << store.problem().toStdString();
    EXPECT_EQ(store.schema_version(), HistoryStore::kSchemaVersion);
    EXPECT_EQ(conversation_to_json(*store.load(conversation.id())),
              conversation_to_json(conversation));
    EXPECT_TRUE(store.save_benchmark({.created_ms = 1, .machine = "m", .build = "b"}));
    EXPECT_EQ(store.benchmarks().size(), 1u);
    EXPECT_TRUE(store.generations().empty());
}

// An answer's reasoning and its figures survive the database, a reopen, and an export and
// import; an export from before reasoning was kept imports with none.
TEST_F(HistoryStoreTest, AnAnswersReasoningIsStoredExportedAndImported) {
    auto conversation = sample();
    Message& answer = *conversation.find(2);
    answer.reasoning = "The café is on the corner;\nsay so kindly.";
    answer.generation->stats.reasoning_tokens = 154;
    answer.generation->stats.reasoning_ns = 3'200'000'000;
    {
        HistoryStore store(path());
        save_all(store, conversation);
    }
    HistoryStore reopened(path());
    const auto loaded = reopened.load(conversation.id());
    ASSERT_TRUE(loaded);
    const Message& stored = *loaded->find(2);
    EXPECT_EQ(stored.reasoning, answer.reasoning);
    EXPECT_EQ(stored.text, "Around the **corner**.");
    EXPECT_EQ(stored.generation->stats.reasoning_tokens, 154);
    EXPECT_EQ(stored.generation->stats.reasoning_ns, 3'200'000'000);
    EXPECT_EQ(loaded->find(3)->reasoning, "");
    // Reasoning is not what the user searches their conversations for.
    EXPECT_TRUE(reopened.search("kindly").empty());

    const auto imported = conversation_from_json(conversation_to_json(*loaded));
    EXPECT_EQ(imported.find(2)->reasoning, answer.reasoning);
    EXPECT_EQ(imported.find(2)->generation->stats.reasoning_tokens, 154);
    EXPECT_EQ(imported.find(2)->generation->stats.reasoning_ns, 3'200'000'000);
    const QByteArray old_export = R"({"format": "hearth-conversation", "version": 1,
        "title": "t", "messages": [{"id": 1, "parent": -1, "role": "user", "text": "Hi"},
        {"id": 2, "parent": 1, "role": "assistant", "text": "Hello",
         "generation": {"stats": {"generated_tokens": 1}}}]})";
    const auto old = conversation_from_json(old_export);
    EXPECT_EQ(old.find(2)->reasoning, "");
    EXPECT_EQ(old.find(2)->generation->stats.reasoning_tokens, 0);
}

// A version-3 database file (made by the version-3 store) opens at the latest version: what it
// held reads as before, with no reasoning, and reasoning saved afterwards is kept.
TEST_F(HistoryStoreTest, MigratesFromVersionThreeToKeepReasoning) {
    auto conversation = sample();
    {
        HistoryStore version3(path(), 3);
        ASSERT_EQ(version3.schema_version(), 3);
        save_all(version3, conversation);
    }
    EXPECT_FALSE(message_columns().contains("reasoning"));
    HistoryStore store(path());
    auto loaded = load_migrated(store, conversation);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->find(2)->reasoning, "");
    EXPECT_TRUE(message_columns().contains("reasoning"));
    loaded->find(2)->reasoning = "Now kept.";
    ASSERT_TRUE(store.save_message(loaded->id(), *loaded->find(2)));
    EXPECT_EQ(store.load(conversation.id())->find(2)->reasoning, "Now kept.");
}

// Each thinking choice (the template's default, on, off) survives the database, a changed
// header, and an export and import.
TEST_F(HistoryStoreTest, TheThinkingChoiceIsStoredExportedAndImported) {
    const std::optional<bool> choices[] = {std::nullopt, true, false};
    for (const auto& choice : choices) {
        const QString file = path(choice ? (*choice ? "on.sqlite" : "off.sqlite") : "unset.sqlite");
        auto conversation = sample();
        conversation.settings().enable_thinking = choice;
        conversation.settings().reasoning_effort = choice ? "high" : "";
        {
            HistoryStore store(file);
            save_all(store, conversation);
        }
        HistoryStore reopened(file);
        const auto loaded = reopened.load(conversation.id());
        ASSERT_TRUE(loaded);
        EXPECT_EQ(loaded->settings().enable_thinking, choice);
        EXPECT_EQ(loaded->settings().reasoning_effort, choice ? "high" : "");
        EXPECT_EQ(conversation_from_json(conversation_to_json(*loaded)).settings().enable_thinking,
                  choice);
        EXPECT_EQ(conversation_from_json(conversation_to_json(*loaded)).settings().reasoning_effort,
                  loaded->settings().reasoning_effort);
        // Changed in the settings afterwards: the header carries it.
        auto changed = *loaded;
        changed.settings().enable_thinking = !choice.value_or(true);
        ASSERT_TRUE(reopened.save_header(changed));
        EXPECT_EQ(reopened.load(changed.id())->settings().enable_thinking, !choice.value_or(true));
    }
}

// Settings stored by a Hearth before the thinking choice (a version-2 database with the
// settings object of that time, and an export of that time) read as the template's default
// with everything else kept; the setting then stores as in any other database.
TEST_F(HistoryStoreTest, SettingsFromBeforeTheThinkingChoiceReadAsTheTemplatesDefault) {
    const char* old_settings =
        R"({"system_prompt": "Be kind.", "max_tokens": 77, "context_length": 1024, )"
        R"("overflow": 0, "json_mode": true, "random_seed": true, "sampler": {"top_k": 5}})";
    {
        HistoryStore version2(path(), 2);
        ASSERT_EQ(version2.schema_version(), 2);
    }
    {
        auto database = QSqlDatabase::addDatabase("QSQLITE", "before-thinking");
        database.setDatabaseName(path());
        ASSERT_TRUE(database.open());
        QSqlQuery query(database);
        query.prepare(
            "INSERT INTO conversations(id, title, created, updated, settings) VALUES "
            "(1, 'Old one', 1, 2, ?)");
        query.addBindValue(QString::fromUtf8(old_settings));
        ASSERT_TRUE(query.exec());
        database.close();
    }
    QSqlDatabase::removeDatabase("before-thinking");
    HistoryStore store(path());
    ASSERT_TRUE(store.available()) << store.problem().toStdString();
    EXPECT_EQ(store.schema_version(), HistoryStore::kSchemaVersion);
    auto loaded = store.load(1);
    ASSERT_TRUE(loaded);
    EXPECT_FALSE(loaded->settings().enable_thinking.has_value());
    EXPECT_EQ(loaded->settings().reasoning_effort, "");
    EXPECT_EQ(loaded->settings().system_prompt, "Be kind.");
    EXPECT_EQ(settings_from_json(QJsonObject{{"reasoning_effort", "extreme"}}).reasoning_effort, "")
        << "only the levels templates know are read back";
    EXPECT_EQ(loaded->settings().max_tokens, 77);
    EXPECT_TRUE(loaded->settings().json_mode);
    EXPECT_EQ(loaded->settings().sampler.top_k, 5);
    loaded->settings().enable_thinking = false;
    ASSERT_TRUE(store.save_header(*loaded));
    EXPECT_EQ(store.load(1)->settings().enable_thinking, false);

    const QByteArray old_export =
        QByteArray(R"({"format": "hearth-conversation", "version": 1, "title": "t", )"
                   R"("created": 1, "messages": [], "settings": )") +
        old_settings + "}";
    const auto imported = conversation_from_json(old_export);
    EXPECT_FALSE(imported.settings().enable_thinking.has_value());
    EXPECT_EQ(imported.settings().max_tokens, 77);
}

TEST_F(HistoryStoreTest, ACorruptFileIsReportedAndLeftUntouched) {
    QFile file(path());
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    const QByteArray garbage(8192, '\x5a');
    file.write(garbage);
    file.close();
    HistoryStore store(path());
    EXPECT_FALSE(store.available());
    EXPECT_TRUE(store.problem().contains("corrupt")) << store.problem().toStdString();
    EXPECT_EQ(store.create(Conversation(0, "x")), 0);  // no writes, no crash
    EXPECT_TRUE(store.conversations().empty());
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(file.readAll(), garbage);
}

TEST_F(HistoryStoreTest, ALockedDatabaseIsReportedAndNothingStoredIsLost) {
    auto conversation = sample();
    HistoryStore store(path());
    save_all(store, conversation);
    auto other = QSqlDatabase::addDatabase("QSQLITE", "locker");
    other.setDatabaseName(path());
    ASSERT_TRUE(other.open());
    {
        QSqlQuery lock(other);
        ASSERT_TRUE(lock.exec("BEGIN EXCLUSIVE"));
        auto message = *conversation.find(1);
        message.text = "changed while locked";
        EXPECT_FALSE(store.save_message(conversation.id(), message));
        EXPECT_TRUE(store.problem().contains("locked")) << store.problem().toStdString();
        lock.exec("ROLLBACK");
    }
    other.close();
    QSqlDatabase::removeDatabase("locker");
    HistoryStore reopened(path());
    EXPECT_EQ(reopened.load(conversation.id())->find(1)->text, "Where is the café?");
}

// kill -9 of a process streaming an answer into the history: the finished messages survive
// whole, and the partial answer is there, marked unfinished, missing at most the last half
// second of text.
TEST_F(HistoryStoreTest, AWriterKilledMidAnswerLosesAtMostHalfASecond) {
    QProcess writer;
    writer.start(QStringLiteral(HEARTH_CRASH_WRITER_PATH), {path()});
    ASSERT_TRUE(writer.waitForStarted());
    std::vector<std::pair<qint64, qint64>> progress;  // (time, text length)
    const qint64 deadline = QDateTime::currentMSecsSinceEpoch() + 1700;
    while (QDateTime::currentMSecsSinceEpoch() < deadline) {
        writer.waitForReadyRead(50);
        while (writer.canReadLine()) {
            const auto fields = QString::fromUtf8(writer.readLine()).split(' ');
            if (fields.size() == 2 && fields[0] != "ready") {
                progress.emplace_back(fields[0].toLongLong(), fields[1].trimmed().toLongLong());
            }
        }
    }
    writer.kill();  // SIGKILL
    const qint64 killed = QDateTime::currentMSecsSinceEpoch();
    ASSERT_TRUE(writer.waitForFinished());
    EXPECT_EQ(writer.exitStatus(), QProcess::CrashExit);
    ASSERT_GT(progress.size(), 20u);

    const auto conversation = written_conversation();
    ASSERT_TRUE(conversation);
    ASSERT_EQ(conversation->messages().size(), 4u);
    const Message* partial = conversation->find(4);
    EXPECT_FALSE(partial->finished);
    // Everything that existed half a second (plus scheduling slack) before the kill is stored.
    qint64 needed = 0;
    for (const auto& [time, length] : progress) {
        if (time <= killed - StreamingSaver::kIntervalMilliseconds - 100) needed = length;
    }
    EXPECT_GE(partial->text.size(), needed);
    EXPECT_GT(partial->text.size(), 0);
    EXPECT_TRUE(partial->text.startsWith("word0 word1 "));
}

// The disk fills while an answer streams (the writer's files may not grow past a limit): the
// app says so in words, keeps going with the whole answer in memory, and every message stored
// before is still there, in a database that is not damaged.
TEST_F(HistoryStoreTest, ADiskThatFillsMidAnswerIsReportedAndNothingStoredIsLost) {
    QProcess writer;
    writer.start(QStringLiteral(HEARTH_FULL_DISK_WRITER_PATH), {path()});
    ASSERT_TRUE(writer.waitForFinished(60000));
    ASSERT_EQ(writer.exitStatus(), QProcess::NormalExit);
    ASSERT_EQ(writer.exitCode(), 0);
    const QString output = QString::fromUtf8(writer.readAllStandardOutput());
    EXPECT_TRUE(output.contains("History is not being saved: the disk refused"))
        << output.toStdString();
    EXPECT_TRUE(output.contains("Conversations stay in memory")) << output.toStdString();
    const QString in_memory = output.section("in memory: ", 1).section('\n', 0, 0);
    EXPECT_TRUE(in_memory.endsWith("after9 "));  // the answer went on after the failure

    const auto conversation = written_conversation();
    ASSERT_TRUE(conversation);
    // The streaming answer, if any of it was written, is a beginning of what is in memory.
    if (const Message* partial = conversation->find(4)) {
        EXPECT_TRUE(in_memory.startsWith(partial->text));
        EXPECT_LT(partial->text.size(), in_memory.size());
    }
    auto database = QSqlDatabase::addDatabase("QSQLITE", "checker");
    database.setDatabaseName(path());
    ASSERT_TRUE(database.open());
    {
        QSqlQuery integrity(database);
        ASSERT_TRUE(integrity.exec("PRAGMA integrity_check") && integrity.next());
        EXPECT_EQ(integrity.value(0).toString(), "ok");
    }
    database.close();
    QSqlDatabase::removeDatabase("checker");
}

}  // namespace
}  // namespace hearth::core

namespace hearth::core {
namespace {

TEST(HistoryStoreEmpty, AnAnswerThatHasNotBegunIsStored) {
    const test::TempDirectory directory;
    HistoryStore store(QString::fromStdString((directory.path() / "h.sqlite").string()));
    Conversation conversation(0, QString());
    const int id = store.create(conversation);
    Message empty;
    empty.id = 1;
    empty.role = "assistant";
    empty.finished = false;
    EXPECT_TRUE(store.save_message(id, empty)) << store.problem().toStdString();
    EXPECT_EQ(store.load(id)->find(1)->text, "");
}

}  // namespace
}  // namespace hearth::core

namespace hearth::core {
namespace {

// A remote answer's connection and model survive the database, a reopen, the dashboard's list
// and an export and import, beside a local answer that keeps its model file.
TEST_F(HistoryStoreTest, ARemoteAnswerKeepsItsConnectionAndModel) {
    auto conversation = with_remote_answer();
    {
        HistoryStore store(path());
        save_all(store, conversation);
    }
    HistoryStore reopened(path());
    const auto loaded = reopened.load(conversation.id());
    ASSERT_TRUE(loaded);
    const GenerationRecord& remote = *loaded->find(3)->generation;
    EXPECT_TRUE(remote.remote());
    EXPECT_EQ(remote.connection, "gpu-box");
    EXPECT_EQ(remote.connection_url, "http://gpu-box:8000/v1");
    EXPECT_EQ(remote.remote_model, "llama-70b");
    EXPECT_EQ(remote.model_file, "");
    EXPECT_EQ(remote.stats.prompt_tokens, 31);
    const GenerationRecord& local = *loaded->find(2)->generation;
    EXPECT_FALSE(local.remote());
    EXPECT_EQ(local.model_file, "/models/x.gguf");
    EXPECT_EQ(reopened.conversations().front().model, "llama-70b");  // the latest answer's
    const auto generations = reopened.generations();
    ASSERT_EQ(generations.size(), 2u);
    const auto remote_row =
        std::find_if(generations.begin(), generations.end(),
                     [](const auto& row) { return !row.remote_model.isEmpty(); });
    ASSERT_NE(remote_row, generations.end());
    EXPECT_EQ(remote_row->connection, "gpu-box");
    EXPECT_EQ(remote_row->remote_model, "llama-70b");

    const QByteArray exported = conversation_to_json(*loaded);
    EXPECT_EQ(conversation_to_json(conversation_from_json(exported)), exported);
    const auto imported = conversation_from_json(exported);
    EXPECT_EQ(imported.find(3)->generation->connection_url, "http://gpu-box:8000/v1");
    EXPECT_EQ(imported.find(3)->generation->remote_model, "llama-70b");
    EXPECT_FALSE(imported.find(2)->generation->remote());
    // A local answer's export has no remote fields at all (as before remote engines).
    EXPECT_FALSE(generation_to_json(local).contains("connection"));
}

// A version-4 database file (made by the version-4 store) opens at the latest version: its
// answers read as local ones, and a remote answer saved afterwards keeps its connection.
TEST_F(HistoryStoreTest, MigratesFromVersionFourToKeepRemoteAnswers) {
    auto conversation = sample();
    {
        HistoryStore version4(path(), 4);
        ASSERT_EQ(version4.schema_version(), 4);
        save_all(version4, conversation);
    }
    EXPECT_FALSE(columns_of("generations").contains("remote_model"));
    HistoryStore store(path());
    auto loaded = load_migrated(store, conversation);
    ASSERT_TRUE(loaded);
    EXPECT_FALSE(loaded->find(2)->generation->remote());
    EXPECT_TRUE(columns_of("generations").contains("remote_model"));
    const auto remote = with_remote_answer();
    ASSERT_TRUE(store.save_message(loaded->id(), *remote.find(3)));
    const auto reloaded = store.load(conversation.id());
    EXPECT_EQ(reloaded->find(3)->generation->connection, "gpu-box");
    EXPECT_EQ(reloaded->find(3)->generation->remote_model, "llama-70b");
}

}  // namespace
}  // namespace hearth::core
