// seed_corpus OUT_DIR: writes each fuzz target's seed corpus under OUT_DIR/<target>/ from the
// shared models and fixtures (nothing from ../shared is copied into the repository). Run by
// run_fuzzers.sh before the targets; rerunning rewrites the same files.
#include <QJsonArray>
#include <QJsonDocument>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/format/gguf_file.h"
#include "engine/format/split_name.h"
#include "engine/model/load_error.h"
#include "engine/text/chat_json.h"
#include "engine/text/jinja/json.h"
#include "tests/engine/remote/server_streams.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/message_codec.h"
#include "tests/fuzz/tiny_model.h"
#include "tests/support/hub_answers.h"
#include "tests/support/split_model.h"

namespace {

namespace fs = std::filesystem;
using hearth::fuzz::shared_dir;

constexpr size_t kHeaderBytes = 16 * 1024;
const std::string kSeparator = "\n__ggml_vocab_test__\n";

class CorpusWriter {
public:
    CorpusWriter(const fs::path& root, const std::string& target) : m_directory(root / target) {
        fs::create_directories(m_directory);
    }
    void add(const std::string& name, std::string_view bytes) {
        std::ofstream(m_directory / name, std::ios::binary).write(bytes.data(), bytes.size());
        ++m_count;
    }
    ~CorpusWriter() { std::printf("%s: %d seeds\n", m_directory.c_str(), m_count); }

private:
    fs::path m_directory;
    int m_count = 0;
};

std::string as_text(const std::vector<std::byte>& bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Tiny twins of the models and vocabularies the reader accepts, and the opening bytes (header,
// metadata, tensor directory) of every file.
void write_gguf(const fs::path& root) {
    CorpusWriter corpus(root, "gguf_fuzz");
    std::vector<fs::path> files = hearth::fuzz::files_ending(shared_dir() / "models", ".gguf");
    for (const auto& path :
         hearth::fuzz::files_ending(shared_dir() / "fixtures" / "tokenizer", ".gguf")) {
        files.push_back(path);
    }
    for (const auto& path : files) {
        const std::string name = path.filename().string();
        // The real tensor directory too: a twin's tensors are F32 where its rows no longer
        // fill a block, so only the file's own opening bytes carry every weight type.
        corpus.add(name + ".head", hearth::fuzz::read_file(path).substr(0, kHeaderBytes));
        try {
            const hearth::GgufFile file(path, {.prefault = false});
            corpus.add(name, as_text(hearth::fuzz::tiny_twin(file)));
        } catch (const hearth::LoadError&) {  // refused: its opening bytes are seed enough
        }
    }
}

std::string word_bytes(uint32_t word) {
    std::string bytes;
    for (int shift = 0; shift < 32; shift += 8) bytes += static_cast<char>(word >> shift);
    return bytes;
}

// A gguf_header_fuzz seed of split mode: the parts of `file` split into `count`, whole.
std::string split_seed(const hearth::GgufFile& file, int count, const fs::path& scratch) {
    std::string lengths;  // of every part but the last, which takes the rest
    std::string parts;
    for (const auto& part : hearth::test::write_split_model(file, scratch / "part", count)) {
        const std::string bytes = hearth::fuzz::read_file(part);
        if (lengths.size() < 4 * static_cast<size_t>(count - 1))
            lengths += word_bytes(static_cast<uint32_t>(bytes.size()));
        parts += bytes;
        fs::remove(part);
    }
    std::string missing;  // no part claims bytes beyond its own
    for (int part = 0; part < count; ++part) missing += word_bytes(0);
    return std::string{'\1', static_cast<char>(count - 1)} + lengths + missing + parts;
}

// gguf_header_fuzz's three modes (see its opening comment): each tiny twin read from its first
// KiB up as an estimate reads it, split into two and three parts, and split part names.
void write_gguf_header(const fs::path& root, const fs::path& scratch) {
    CorpusWriter corpus(root, "gguf_header_fuzz");
    fs::create_directories(scratch);
    for (const auto& path : hearth::fuzz::files_ending(shared_dir() / "models", ".gguf")) {
        const std::string name = path.filename().string();
        try {
            const std::string twin =
                as_text(hearth::fuzz::tiny_twin(hearth::GgufFile(path, {.prefault = false})));
            corpus.add(name, std::string{'\0', 10} + word_bytes(0) + twin);
            const fs::path twin_path = scratch / "twin.gguf";
            std::ofstream(twin_path, std::ios::binary).write(twin.data(), twin.size());
            const hearth::GgufFile small(twin_path, {.prefault = false});
            for (const int count : {2, 3})
                corpus.add(name + ".split" + std::to_string(count),
                           split_seed(small, count, scratch));
        } catch (const hearth::LoadError&) {  // refused: the other seeds cover its header
        }
    }
    const std::pair<const char*, const char*> names[] = {
        {"first-part", "model-00001-of-00003.gguf"},
        {"later-part-in-folder", "dir/Q4_K_M/x-00002-of-00002.gguf"},
        {"short-numbers", "x-1-of-2.gguf"},
        {"no-prefix", "-00001-of-00001.gguf"}};
    for (const auto& [seed, name] : names) corpus.add(seed, std::string{'\2'} + name);
}

std::vector<std::string> tokenizer_cases(const std::string& vocabulary_name) {
    const fs::path input = shared_dir() / "fixtures" / "tokenizer" / (vocabulary_name + ".inp");
    std::vector<std::string> cases;
    if (!fs::exists(input)) return {"Hello world", " <s>[INST] \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80"};
    const std::string text = hearth::fuzz::read_file(input);
    for (size_t start = 0; start < text.size();) {
        const size_t end = std::min(text.find(kSeparator, start), text.size());
        cases.push_back(text.substr(start, end - start));
        start = end + kSeparator.size();
    }
    return cases;
}

std::string id_bytes(const std::vector<int32_t>& ids) {
    std::string bytes;
    for (const int32_t id : ids) {
        // next_id in tokenizer_decode_fuzz reads a word below 2^31 as an id + 1.
        const auto word = static_cast<uint32_t>(id + 1);
        for (int shift = 0; shift < 32; shift += 8) bytes += static_cast<char>(word >> shift);
    }
    return bytes;
}

// Each tokenizer case for each vocabulary: as text to encode, as ids to decode, and cut into
// fragments for the UTF-8 buffer.
void write_tokenizer(const fs::path& root) {
    CorpusWriter encode(root, "tokenizer_encode_fuzz");
    CorpusWriter decode(root, "tokenizer_decode_fuzz");
    CorpusWriter utf8(root, "utf8_buffer_fuzz");
    const auto& tokenizers = hearth::fuzz::shared_tokenizers();
    for (size_t index = 0; index < tokenizers.size(); ++index) {
        const auto& [name, tokenizer] = tokenizers[index];
        const auto cases = tokenizer_cases(name);
        for (size_t i = 0; i < cases.size(); ++i) {
            const std::string id = name + "-" + std::to_string(i);
            const std::string head{static_cast<char>(index), static_cast<char>(i % 16)};
            encode.add(id, head + cases[i]);
            decode.add(id, head + id_bytes(tokenizer->encode(cases[i], {})));
            if (index != 0) continue;
            std::string fragments;
            for (size_t at = 0; at < cases[i].size(); at += 3) {
                const std::string piece = cases[i].substr(at, 3);
                fragments += static_cast<char>(piece.size()) + piece;
            }
            utf8.add(id, fragments);
        }
    }
}

const hearth::jinja::Value* field(const hearth::jinja::Value& object, const std::string& key) {
    return object.is_object() ? object.as_object().find(key) : nullptr;
}

// Every template's source; each usable template with each fixture case's conversation; the
// cases' JSON for the JSON parser; their tools' parameter schemas for JSON mode.
void write_templates(const fs::path& root) {
    CorpusWriter sources(root, "jinja_template_fuzz");
    CorpusWriter conversations(root, "jinja_messages_fuzz");
    CorpusWriter json(root, "json_parse_fuzz");
    CorpusWriter schemas(root, "json_schema_fuzz");
    for (const auto& fixture : hearth::fuzz::template_fixtures())
        sources.add(fixture.name, fixture.source);
    const auto& usable = hearth::fuzz::chat_templates();
    for (size_t index = 0; index < usable.size(); ++index) {
        const fs::path path =
            shared_dir() / "fixtures" / "chat_templates" / (usable[index].name + ".json");
        const hearth::jinja::Value fixture =
            hearth::jinja::parse_json(hearth::fuzz::read_file(path));
        const auto* cases = field(fixture, "cases");
        if (cases == nullptr || !cases->is_array()) continue;
        for (const auto& one : cases->as_array()) {
            const std::string id = usable[index].name + "-" + field(one, "name")->as_string();
            const auto* messages = field(one, "messages");
            const auto* generation = field(one, "add_generation_prompt");
            const auto* tools = field(one, "tools");
            const char flags = static_cast<char>((generation && generation->truthy() ? 1 : 0) |
                                                 (tools && tools->truthy() ? 16 : 0));
            try {
                const auto parsed = hearth::parse_chat_messages(*messages);
                conversations.add(id, std::string{static_cast<char>(index), flags} +
                                          hearth::fuzz::encode_messages(parsed));
            } catch (const std::invalid_argument&) {
            }
            if (index % 4 == 0) json.add(id, hearth::jinja::dump_json(*messages));
            if (tools == nullptr || !tools->is_array()) continue;
            for (const auto& tool : tools->as_array()) {
                const auto* parameters = field(*field(tool, "function"), "parameters");
                if (parameters != nullptr)
                    schemas.add(id, hearth::jinja::dump_json(*parameters) + '\0' + "{\"a\": 1}");
            }
        }
    }
    schemas.add(
        "any-object",
        std::string("{\"type\": \"object\"}\0{\"x\": [1, 2.5e3, \"\\u00e9\", true, null]}", 50));
}

// Real servers' streams for the remote client's reader, in several piece sizes; request bodies
// of both endpoints for hearth-server's parser.
void write_network(const fs::path& root) {
    CorpusWriter streams(root, "sse_stream_fuzz");
    for (const auto& stream : hearth::test::server_streams()) {
        for (const char piece : {0, 3, 15}) streams.add(stream.server, piece + stream.bytes);
    }
    CorpusWriter requests(root, "api_request_fuzz");
    requests.add("chat", R"({"model":"m","messages":[{"role":"system","content":"Be brief."},)"
                         R"({"role":"user","content":[{"type":"text","text":"Hi"}]}],)"
                         R"("max_tokens":16,"temperature":0.7,"top_p":0.9,"top_k":40,"seed":1,)"
                         R"("stop":["\n"],"stream":true,"stream_options":{"include_usage":true}})");
    requests.add("schema", R"({"messages":[{"role":"user","content":"JSON"}],"response_format":)"
                           R"({"type":"json_schema","json_schema":{"name":"a","schema":{"type":)"
                           R"("object","properties":{"x":{"type":"integer"}}}}}})");
    requests.add("tools", R"({"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":)"
                          R"("c1","type":"function","function":{"name":"f","arguments":"{}"}}]},)"
                          R"({"role":"tool","tool_call_id":"c1","content":"42"}],"tools":[{"type":)"
                          R"("function","function":{"name":"f","parameters":{}}}]})");
    requests.add("completion", R"({"prompt":"Once upon a time","max_tokens":8,"echo":false})");
}

std::string json_text(const QJsonDocument& document) {
    return document.toJson(QJsonDocument::Compact).toStdString();
}

// What the hub test server answers for two repositories (one with a split model in a folder),
// as hub_json_fuzz reads it: a search, a tree, and its pages' Link headers.
void write_hub(const fs::path& root) {
    CorpusWriter corpus(root, "hub_json_fuzz");
    using hearth::test::hub_file;
    const hearth::test::HubTestRepository split{
        "owner/Split-GGUF",
        {hub_file("README.md", QByteArray("# a model")),
         hub_file("Q8_0/model-Q8_0-00001-of-00002.gguf", QByteArray("GGUF one")),
         hub_file("Q8_0/model-Q8_0-00002-of-00002.gguf", QByteArray("GGUF two")),
         hub_file("model-Q4_K_M.gguf", QByteArray("GGUF whole"))},
        false,
        1234};
    const hearth::test::HubTestRepository uncounted{
        "someone/tiny", {hub_file("tiny-F16.gguf", QByteArray("GGUF"))}, true, std::nullopt};
    corpus.add(
        "search",
        '\0' + json_text(QJsonDocument(QJsonArray{hearth::test::hub_search_entry(split),
                                                  hearth::test::hub_search_entry(uncounted)})));
    corpus.add("tree", '\1' + json_text(QJsonDocument(hearth::test::hub_tree_entries(split))));
    corpus.add("tree-gated",
               '\1' + json_text(QJsonDocument(hearth::test::hub_tree_entries(uncounted))));
    const std::string tree = "https://huggingface.co/api/models/owner/Split-GGUF/tree/main";
    corpus.add("link", '\2' + hearth::test::hub_tree_link(tree, 1000));
    corpus.add("link-relative", "\2</api/models/owner/Split-GGUF/tree/main?cursor=2>; rel=next");
    // What the fuzzer found (hub_json_test has each as a regression test).
    corpus.add("found-sizes-past-the-limit",
               '\1' + std::string(R"([{"type":"file","path":"a-00001-of-00002.gguf","size":)"
                                  R"(9000000000000000000},{"type":"file","path":)"
                                  R"("a-00002-of-00002.gguf","size":9000000000000000000}])"));
    corpus.add("found-next-page-elsewhere", "\2<https://elsewhere.example/steal>; rel=\"next\"");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    hearth::fuzz::silence_logs();
    const fs::path root = argv[1];
    write_gguf(root);
    write_tokenizer(root);
    write_network(root);
    write_templates(root);
    write_hub(root);
    write_gguf_header(root, root / "scratch");
    std::filesystem::remove_all(root / "scratch");
    return 0;
}
