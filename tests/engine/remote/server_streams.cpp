#include "tests/engine/remote/server_streams.h"

namespace hearth::test {
namespace {

std::string vllm_chunk(const std::string& choices, const std::string& rest = "") {
    return R"(data: {"id":"chatcmpl-9f2c","object":"chat.completion.chunk","created":1732000000,)"
           R"("model":"Qwen/Qwen3-8B","choices":)" +
           choices + rest + "}\n\n";
}

std::string vllm_delta(const std::string& delta, const std::string& finish = "null") {
    return vllm_chunk(R"([{"index":0,"delta":)" + delta + R"(,"logprobs":null,"finish_reason":)" +
                      finish + "}]");
}

ServerStream vllm() {
    ServerStream stream{.server = "vLLM"};
    stream.bytes = vllm_delta(R"({"role":"assistant","content":""})") +
                   vllm_delta(R"({"reasoning_content":"The user says hi."})") +
                   vllm_delta(R"({"reasoning_content":" Answer briefly."})") +
                   vllm_delta(R"({"content":"Hello"})") + vllm_delta(R"({"content":"! How"})") +
                   vllm_delta(R"({"content":" can I help? \u00e9\ud83d\ude00"})", R"("stop")") +
                   vllm_chunk("[]", R"(,"usage":{"prompt_tokens":14,"total_tokens":22,)"
                                    R"("completion_tokens":8,"prompt_tokens_details":)"
                                    R"({"cached_tokens":12}})") +
                   "data: [DONE]\n\n";
    stream.content = "Hello! How can I help? é😀";
    stream.reasoning = "The user says hi. Answer briefly.";
    stream.finish_reason = "stop";
    stream.prompt_tokens = 14;
    stream.completion_tokens = 8;
    stream.cached_tokens = 12;
    stream.content_events = 5;
    return stream;
}

std::string llama_chunk(const std::string& choice, const std::string& rest = "") {
    return R"(data: {"choices":[)" + choice +
           R"(],"created":1732000000,"id":"chatcmpl-Qd3kP0aZ","model":"gpt-3.5-turbo",)"
           R"("system_fingerprint":"b10573-d775b8967","object":"chat.completion.chunk")" +
           rest + "}\n\n";
}

ServerStream llama_cpp() {
    ServerStream stream{.server = "llama.cpp"};
    stream.bytes =
        llama_chunk(
            R"({"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}})") +
        llama_chunk(R"({"finish_reason":null,"index":0,"delta":{"reasoning_content":"Count."}})") +
        llama_chunk(R"({"finish_reason":null,"index":0,"delta":{"content":"One,"}})") +
        llama_chunk(R"({"finish_reason":null,"index":0,"delta":{"content":" two,"}})") +
        llama_chunk(R"({"finish_reason":null,"index":0,"delta":{"content":" three"}})") +
        llama_chunk(R"({"finish_reason":"length","index":0,"delta":{}})",
                    R"(,"usage":{"completion_tokens":4,"prompt_tokens":9,"total_tokens":13,)"
                    R"("prompt_tokens_details":{"cached_tokens":0}},"timings":{"cache_n":0,)"
                    R"("prompt_n":9,"prompt_ms":20.1,"predicted_n":4,"predicted_ms":61.5})") +
        "data: [DONE]\n\n";
    stream.content = "One, two, three";
    stream.reasoning = "Count.";
    stream.finish_reason = "length";
    stream.prompt_tokens = 9;
    stream.completion_tokens = 4;
    stream.content_events = 4;
    return stream;
}

std::string ollama_chunk(const std::string& choices, const std::string& rest = "") {
    return R"(data: {"id":"chatcmpl-637","object":"chat.completion.chunk","created":1732000000,)"
           R"("model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":)" +
           choices + rest + "}\n\n";
}

std::string ollama_delta(const std::string& fields, const std::string& finish = "null") {
    return ollama_chunk(R"([{"index":0,"delta":{"role":"assistant",)" + fields +
                        R"(},"finish_reason":)" + finish + "}]");
}

ServerStream ollama() {
    ServerStream stream{.server = "Ollama"};
    stream.bytes = ollama_delta(R"("content":"","reasoning":"Greet back.")") +
                   ollama_delta(R"("content":"Hi")") + ollama_delta(R"("content":" there.")") +
                   ollama_delta(R"("content":"")", R"("stop")") +
                   ollama_chunk("[]", R"(,"usage":{"prompt_tokens":26,"completion_tokens":5,)"
                                      R"("total_tokens":31})") +
                   "data: [DONE]\n\n";
    stream.content = "Hi there.";
    stream.reasoning = "Greet back.";
    stream.finish_reason = "stop";
    stream.prompt_tokens = 26;
    stream.completion_tokens = 5;
    stream.content_events = 3;
    return stream;
}

// Line ends as CRLF, comments as keep-alives, an id field and an explicit event type.
ServerStream through_proxy() {
    ServerStream stream = llama_cpp();
    stream.server = "llama.cpp through a proxy";
    std::string framed = ": keep-alive\r\n\r\nretry: 3000\r\n";
    int id = 0;
    for (size_t start = 0; start < stream.bytes.size();) {
        const size_t end = stream.bytes.find("\n\n", start);
        framed += "id: " + std::to_string(++id) + "\r\nevent: message\r\n" +
                  stream.bytes.substr(start, end - start) + "\r\n\r\n: ping\r\n\r\n";
        start = end + 2;
    }
    stream.bytes = framed;
    return stream;
}

}  // namespace

const std::vector<ServerStream>& server_streams() {
    static const std::vector<ServerStream> streams{vllm(), llama_cpp(), ollama(), through_proxy()};
    return streams;
}

}  // namespace hearth::test
