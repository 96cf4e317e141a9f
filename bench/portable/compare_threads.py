#!/usr/bin/env python3
"""hearth-bench against llama-bench on the same files, as ../shared/tools/compare-llamacpp.py does,
at any thread counts and on either backend: pp512 and tg128 (3 repetitions each) per program,
the programs interleaved for N rounds; prints the medians of the per-round ratios.
Usage: compare_threads.py HEARTH_BENCH LLAMA_BENCH [--threads 4,8,16] [--backend cpu|vulkan]
                          [--rounds 3] [--depth D] MODEL...
Raw figures go to stderr and, as JSON lines, to $RESULTS/compare.jsonl when RESULTS is set."""
import json
import os
import statistics
import subprocess
import sys
import time


def take_option(args, name, default):
    if name in args:
        i = args.index(name)
        value = args[i + 1]
        del args[i:i + 2]
        return value
    return default


def first_json(text):
    # Log lines (the Vulkan device chosen, say) may come before the JSON document.
    start = 0 if text.startswith("{") or text.startswith("[") else text.find("\n{") + 1
    return json.loads(text[start:])


def hearth(program, model, threads, backend, depth):
    command = [program, "-m", model, "-p", "512", "-n", "128", "-r", "3", "-t", str(threads),
               "--backend", backend, "--json"]
    if depth:
        command += ["-d", str(depth)]
    run = subprocess.run(command, capture_output=True, timeout=1800)
    if run.returncode:
        print("hearth-bench failed:", run.stderr.decode()[-2000:], file=sys.stderr)
        return None, None, None
    document = first_json(run.stdout.decode())
    speed = {row["test"][:2]: row["tokens_per_second"]["median"] for row in document["results"]}
    return speed.get("tg"), speed.get("pp"), document.get("peak_rss_mib")


def llama(program, model, threads, backend, depth):
    command = [program, "-m", model, "-p", "512", "-n", "128", "-r", "3", "-t", str(threads),
               "-o", "json"]
    # On the CPU no device may take part, not even for the prompt's large products.
    command += ["-ngl", "0", "-dev", "none"] if backend == "cpu" else ["-ngl", "99"]
    if depth:
        command += ["-d", str(depth)]
    libraries = os.path.dirname(program) + ":" + os.environ.get("LD_LIBRARY_PATH", "")
    run = subprocess.run(command, capture_output=True, timeout=1800,
                         env=dict(os.environ, LD_LIBRARY_PATH=libraries))
    if run.returncode:
        print("llama-bench failed:", run.stderr.decode()[-2000:], file=sys.stderr)
        return None, None
    tg = pp = None
    for row in first_json(run.stdout.decode()):
        if row.get("n_gen", 0) > 0:
            tg = statistics.median(row["samples_ts"])
        elif row.get("n_prompt", 0) > 0:
            pp = statistics.median(row["samples_ts"])
    return tg, pp


def median_of(values):
    values = [v for v in values if v]
    return statistics.median(values) if values else 0.0


def main():
    args = sys.argv[1:]
    threads = [int(t) for t in take_option(args, "--threads", "2").split(",")]
    backend = take_option(args, "--backend", "cpu")
    rounds = int(take_option(args, "--rounds", "3"))
    depth = int(take_option(args, "--depth", "0"))
    hearth_bench, llama_bench, *models = args
    results = os.environ.get("RESULTS")
    for model in models:
        for count in threads:
            rows = []
            for _ in range(rounds):
                started = time.time()
                h_tg, h_pp, rss = hearth(hearth_bench, model, count, backend, depth)
                l_tg, l_pp = llama(llama_bench, model, count, backend, depth)
                rows.append({"hearth_tg": h_tg, "hearth_pp": h_pp, "hearth_rss_mib": rss,
                             "llama_tg": l_tg, "llama_pp": l_pp,
                             "seconds": round(time.time() - started, 1)})
            ratio = lambda a, b: median_of([r[a] / r[b] for r in rows if r[a] and r[b]])
            name = os.path.basename(model)
            print(f"{name} {backend} t={count}: decode {ratio('hearth_tg', 'llama_tg'):.2f}x "
                  f"({median_of([r['hearth_tg'] for r in rows]):.1f} vs "
                  f"{median_of([r['llama_tg'] for r in rows]):.1f} tok/s), pp512 "
                  f"{ratio('hearth_pp', 'llama_pp'):.2f}x", flush=True)
            print(name, backend, count, json.dumps(rows), file=sys.stderr, flush=True)
            if results:
                with open(os.path.join(results, "compare.jsonl"), "a") as out:
                    out.write(json.dumps({"model": name, "backend": backend, "threads": count,
                                          "depth": depth, "rounds": rows}) + "\n")


if __name__ == "__main__":
    main()
