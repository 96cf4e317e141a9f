#!/usr/bin/env bash
# The raw SSE framing as curl reads it: hearth-server on a free port, one streamed chat answer
# read with curl -N, its bytes compared with OpenAI's framing line by line (only the id and the
# time vary), then SIGTERM must end the server with exit status 0. The CPU backend: the
# sanitizer build checks the server for leaks, and Mesa's Vulkan driver leaks a little of its own.
#   curl_sse_test.sh HEARTH_SERVER MODEL.gguf
set -euo pipefail
server=$1
model=$2
fail() {
    echo "FAIL: $*" >&2
    [ -n "${log:-}" ] && sed 's/^/  server: /' "$log" >&2
    exit 1
}
command -v curl > /dev/null || fail "curl is missing: apt-get install curl (packaging/setup.sh test installs it)"

work=$(mktemp -d)
log=$work/server.log
trap 'kill "$pid" 2> /dev/null || true; rm -rf "$work"' EXIT
"$server" -m "$model" --backend cpu --port 0 --ctx 256 --rows 2 -t 2 2> "$log" &
pid=$!
port=""
for _ in $(seq 600); do  # up to a minute for the model to load
    port=$(sed -n 's|.* on http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$log")
    [ -n "$port" ] && break
    kill -0 "$pid" 2> /dev/null || fail "hearth-server exited before listening"
    sleep 0.1
done
[ -n "$port" ] || fail "hearth-server did not say which port it listens on"

curl -sS -N --max-time 60 -D "$work/headers" -o "$work/body" \
    -H 'Content-Type: application/json' \
    -d '{"messages":[{"role":"user","content":"Once upon a time"}],"max_tokens":4,"temperature":0,"stream":true,"stream_options":{"include_usage":true}}' \
    "http://127.0.0.1:$port/v1/chat/completions" || fail "curl failed"

grep -qi '^content-type: text/event-stream' "$work/headers" || fail "not text/event-stream: $(cat "$work/headers")"
grep -qi '^transfer-encoding: chunked' "$work/headers" || fail "not chunked: $(cat "$work/headers")"

# Every id is the same; the time is when the answer began.
id=$(sed -n '1s/^data: {"id":"\(chatcmpl-[0-9a-f]*\)".*/\1/p' "$work/body")
[ -n "$id" ] || fail "the first line is not a chunk with an id: $(head -1 "$work/body")"
sed -e "s/\"id\":\"$id\"/\"id\":\"ID\"/" -e 's/"created":[0-9]*/"created":T/' "$work/body" > "$work/normalised"
head='data: {"id":"ID","object":"chat.completion.chunk","created":T,"model":"stories260K",'
cat > "$work/expected" << END
${head}"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}

${head}"choices":[{"index":0,"delta":{"content":","},"logprobs":null,"finish_reason":null}],"usage":null}

${head}"choices":[{"index":0,"delta":{"content":" there"},"logprobs":null,"finish_reason":null}],"usage":null}

${head}"choices":[{"index":0,"delta":{"content":" was"},"logprobs":null,"finish_reason":null}],"usage":null}

${head}"choices":[{"index":0,"delta":{"content":" a"},"logprobs":null,"finish_reason":null}],"usage":null}

${head}"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}],"usage":null}

${head}"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":4,"total_tokens":9,"prompt_tokens_details":{"cached_tokens":0}}}

data: [DONE]

END
diff -u "$work/expected" "$work/normalised" > "$work/diff" || fail "the stream is framed differently:
$(cat "$work/diff")"

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
[ "$status" -eq 0 ] || fail "hearth-server exited with status $status after SIGTERM"
grep -q 'POST /v1/chat/completions 200' "$log" || fail "the request was not logged"
echo "ok: SSE framing exact, clean exit on SIGTERM"
