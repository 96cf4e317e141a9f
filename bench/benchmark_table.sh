#!/usr/bin/env bash
# The closing-note benchmark: the synthetic TinyLlama-1.1B and SmolLM-135M files in F16, Q8_0,
# Q4_0 and Q4_K_M (generated with hearth-synth-model when missing), measured in interleaved
# rounds (a bandwidth probe, then every model once) so the machine's swings hit all of them
# alike, reported as medians beside the decode roofline: measured read bandwidth / bytes one
# decoded token reads.
#   bench/benchmark_table.sh [BUILD_DIR] [MODEL_DIR] [ROUNDS] [extra hearth-bench options...]
set -euo pipefail
build=${1:-build}
models=${2:-${TMPDIR:-/tmp}/hearth-bench-models}
rounds=${3:-3}
shift $(($# < 3 ? $# : 3))
mkdir -p "$models"
files=()
for shape in smollm-135m tinyllama-1.1b; do
    for type in F16 Q8_0 Q4_0 Q4_K_M; do
        file="$models/$shape-$type.gguf"
        [ -f "$file" ] || "$build/bench/hearth-synth-model" "$shape" "$type" "$file" >&2
        files+=("$file")
    done
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for ((round = 1; round <= rounds; round++)); do
    bandwidth=$("$build/bench/hearth-bandwidth" | sed -E 's/.*median ([0-9.]+) GB\/s.*/\1/')
    echo "bandwidth $bandwidth" >>"$log"
    for file in "${files[@]}"; do
        json=$("$build/bench/hearth-bench" -m "$file" -p 512 -n 128 -r 1 --json "$@")
        pp=$(grep -oE '"pp512", "tokens_per_second": \{"median": [0-9.]+' <<<"$json" | grep -oE '[0-9.]+$')
        tg=$(grep -oE '"tg128", "tokens_per_second": \{"median": [0-9.]+' <<<"$json" | grep -oE '[0-9.]+$')
        bytes=$(grep -oE '"bytes_per_token": [0-9]+' <<<"$json" | grep -oE '[0-9]+$')
        rss=$(grep -oE '"peak_rss_mib": [0-9]+' <<<"$json" | grep -oE '[0-9]+$')
        echo "model $(basename "$file" .gguf) $pp $tg $bytes $rss" >>"$log"
        echo "round $round: $(basename "$file" .gguf) pp512 $pp tg128 $tg" >&2
    done
done
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
bandwidth=$(awk '$1 == "bandwidth" {print $2}' "$log" | median)
echo "read bandwidth (median of $rounds probes): $bandwidth GB/s"
echo
echo "| model | MiB read / token | peak RSS MiB | pp512 tok/s | tg128 tok/s | roofline tok/s | tg / roofline |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for file in "${files[@]}"; do
    name=$(basename "$file" .gguf)
    pp=$(awk -v n="$name" '$1 == "model" && $2 == n {print $3}' "$log" | median)
    tg=$(awk -v n="$name" '$1 == "model" && $2 == n {print $4}' "$log" | median)
    bytes=$(awk -v n="$name" '$1 == "model" && $2 == n {print $5}' "$log" | head -1)
    rss=$(awk -v n="$name" '$1 == "model" && $2 == n {print $6}' "$log" | median)
    awk -v n="$name" -v pp="$pp" -v tg="$tg" -v b="$bytes" -v r="$rss" -v bw="$bandwidth" \
        'BEGIN {roof = bw * 1e9 / b; printf "| %s | %.1f | %d | %.1f | %.1f | %.1f | %.0f%% |\n", n, b / 1048576, r, pp, tg, roof, 100 * tg / roof}'
done
