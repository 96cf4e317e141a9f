#!/usr/bin/env bash
# Runs the fuzz targets of a HEARTH_FUZZ=ON build tree from their seed corpora.
#   tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]
# Each target runs for SECONDS (all targets when none is named), as many at once as there are
# cores. Any crash, leak, timeout (an input running over 10 s) or out-of-memory (over 2 GiB)
# fails the run, and the input that caused it is printed with the command that replays it.
# What the fuzzers learn is kept in BUILD_DIR/tests/fuzz/work/, so later runs start from it.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)/tests/fuzz
seconds=$2
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(gguf_fuzz tokenizer_encode_fuzz tokenizer_decode_fuzz
    utf8_buffer_fuzz jinja_template_fuzz jinja_messages_fuzz json_parse_fuzz json_schema_fuzz
    sse_stream_fuzz api_request_fuzz gguf_header_fuzz hub_json_fuzz)

dictionary() {
    case $1 in
        gguf_fuzz | gguf_header_fuzz) echo gguf.dict ;;
        tokenizer_*) echo tokenizer.dict ;;
        jinja_*) echo jinja.dict ;;
        json_* | sse_* | api_* | hub_*) echo json.dict ;;
        *) echo "" ;;
    esac
}

run_one() {
    local target=$1 dict options=()
    dict=$(dictionary "$target")
    [ -z "$dict" ] || options+=("-dict=$source_dir/$dict")
    # GGUF seeds are whole (tiny) models; past 128 KiB only tensor bytes would grow.
    case $target in gguf_*) options+=(-max_len=131072) ;; esac
    mkdir -p "$build/work/$target" "$build/artifacts/$target"
    if "$build/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$build/artifacts/$target/" "${options[@]}" \
        "$build/work/$target" "$build/corpus/$target" >"$build/$target.log" 2>&1; then
        echo "fuzz: $target: $(grep -E '^#[0-9]+[[:space:]]+DONE' "$build/$target.log" | tail -1)"
        return 0
    fi
    echo "fuzz: $target FAILED; the end of its log ($build/$target.log):"
    tail -n 40 "$build/$target.log"
    local unit
    unit=$(grep -o 'Test unit written to .*' "$build/$target.log" | sed 's/Test unit written to //' | tail -1)
    [ -z "$unit" ] || echo "fuzz: reproduce with: $build/$target $unit"
    return 1
}

rm -rf "$build/corpus"
"$build/seed_corpus" "$build/corpus" >"$build/seed_corpus.log" 2>&1
failed=0
running=0
for target in "${targets[@]}"; do
    if [ "$running" -ge "$(nproc)" ]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
    run_one "$target" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done
exit $failed
