#!/usr/bin/env python3
"""Aggregate decode throughput of an OpenAI-compatible server (hearth-server or llama.cpp's
llama-server) at several stream counts, with the same requests for both.

    bench/serve_load.py URL [--streams 1,2,4,8,16] [--tokens 64] [--rounds 3] [--api-key KEY]
                            [--extra JSON]

For each stream count, that many clients POST /v1/completions at once (streaming, greedy, a
distinct short prompt each) and read their streams to the end. Aggregate tok/s is every
completion token (from the usage each stream reports) over the wall time from the first
request to the last stream's end; time to first token is per stream. Rounds interleave the
stream counts so the machine's swings hit them alike; the table gives medians over rounds.
--extra merges fields into every request body: llama-server (b10573) ends a stream with an
error when a random-weight model's greedy text is not valid UTF-8, so a comparison bans its
byte-fallback tokens there (`--extra '{"logit_bias": {"3": -100, ...}}'`), which leaves the
work per token the same. Standard library only."""
import argparse
import http.client
import json
import statistics
import threading
import time
import urllib.parse


def stream_completion(url, api_key, prompt, tokens, start, out, extra):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
    # No "model": each server answers with the one it loaded (hearth-server refuses a name that
    # is not its model's with 404; llama-server ignores the field).
    body = json.dumps({
        "prompt": prompt, "max_tokens": tokens, "temperature": 0,
        "stream": True, "stream_options": {"include_usage": True}, **extra,
    })
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    connection.request("POST", "/v1/completions", body, headers)
    response = connection.getresponse()
    if response.status != 200:
        raise RuntimeError(f"HTTP {response.status}: {response.read()[:200]!r}")
    first = None
    completion_tokens = None
    for raw in response:
        line = raw.decode("utf-8").strip()
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        event = json.loads(data)
        if "error" in event:  # a server that fails mid-stream says why in an event
            raise RuntimeError(f"the stream ended with an error: {event['error']}")
        if first is None and any(c.get("text") for c in event.get("choices", [])):
            first = time.monotonic() - start
        if event.get("usage"):
            completion_tokens = event["usage"]["completion_tokens"]
    connection.close()
    if completion_tokens is None:
        raise RuntimeError(f"the stream reported no usage (status {response.status}, "
                           f"first token {'seen' if first is not None else 'never seen'})")
    out.append((first if first is not None else time.monotonic() - start, completion_tokens))


def run_round(url, api_key, streams, tokens, extra):
    results, errors = [], []
    start = time.monotonic()

    def client(index):
        try:
            stream_completion(url, api_key, f"Stream {index} begins a story about", tokens,
                              start, results, extra)
        except Exception as error:  # reported after the round
            errors.append(error)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(streams)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    wall = time.monotonic() - start
    return sum(t for _, t in results) / wall, [f for f, _ in results]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url")
    parser.add_argument("--streams", default="1,2,4,8,16")
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--api-key")
    parser.add_argument("--extra", type=json.loads, default={},
                        help="JSON object merged into every request body")
    args = parser.parse_args()
    counts = [int(s) for s in args.streams.split(",")]
    rates = {n: [] for n in counts}
    first_median = {n: [] for n in counts}
    first_worst = {n: [] for n in counts}
    for _ in range(args.rounds):
        for n in counts:
            rate, firsts = run_round(args.url, args.api_key, n, args.tokens, args.extra)
            rates[n].append(rate)
            first_median[n].append(statistics.median(firsts))
            first_worst[n].append(max(firsts))
    print(f"{args.url}: {args.tokens} tokens per stream, median of {args.rounds} rounds")
    print("| streams | aggregate tok/s | × one stream | TTFT median ms | TTFT worst ms |")
    print("|---:|---:|---:|---:|---:|")
    one = statistics.median(rates[counts[0]])
    for n in counts:
        rate = statistics.median(rates[n])
        print(f"| {n} | {rate:.1f} | {rate / one:.2f} | "
              f"{statistics.median(first_median[n]) * 1000:.0f} | "
              f"{statistics.median(first_worst[n]) * 1000:.0f} |")


if __name__ == "__main__":
    main()
