#!/usr/bin/env bash
# The closing-note benchmark: the synthetic TinyLlama-1.1B and SmolLM-135M files in F16, Q8_0,
# Q4_0 and Q4_K_M (generated with hearth-synth-model when missing), measured in interleaved
# rounds (a bandwidth probe, then every model once) so the machine's swings hit all of them
# alike, reported as medians beside the decode roofline: measured read bandwidth / bytes one
# decoded token reads (for a mixture of experts, the active bytes: the chosen experts only).
#   bench/benchmark_table.sh [BUILD_DIR] [MODEL_DIR] [ROUNDS] [extra hearth-bench options...]
# SHAPES and TYPES (space-separated) choose other files, e.g. SHAPES=qwen3moe-30b-a3b
# TYPES=Q4_K_M. A type hearth-synth-model does not write (gpt-oss-20b's MXFP4_MOE) is made from
# its F16 file with $LLAMA_QUANTIZE (llama.cpp's llama-quantize) when that is set.
set -euo pipefail
build=${1:-build}
models=${2:-${TMPDIR:-/tmp}/hearth-bench-models}
rounds=${3:-3}
shift $(($# < 3 ? $# : 3))
mkdir -p "$models"
files=()
synthesize() {  # SHAPE TYPE FILE
    if [ "$2" = MXFP4_MOE ] && [ -n "${LLAMA_QUANTIZE:-}" ]; then
        [ -f "$models/$1-F16.gguf" ] || "$build/bench/hearth-synth-model" "$1" F16 "$models/$1-F16.gguf" >&2
        "$LLAMA_QUANTIZE" "$models/$1-F16.gguf" "$3" MXFP4_MOE >&2
    else
        "$build/bench/hearth-synth-model" "$1" "$2" "$3" >&2
    fi
}
for shape in ${SHAPES:-smollm-135m tinyllama-1.1b}; do
    for type in ${TYPES:-F16 Q8_0 Q4_0 Q4_K_M}; do
        file="$models/$shape-$type.gguf"
        [ -f "$file" ] || synthesize "$shape" "$type" "$file"
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
        experts=$(grep -oE '"expert_count": [0-9]+' <<<"$json" | grep -oE '[0-9]+$')
        used=$(grep -oE '"experts_used": [0-9]+' <<<"$json" | grep -oE '[0-9]+$')
        echo "model $(basename "$file" .gguf) $pp $tg $bytes $rss $used/$experts" >>"$log"
        echo "round $round: $(basename "$file" .gguf) pp512 $pp tg128 $tg" >&2
    done
done
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
bandwidth=$(awk '$1 == "bandwidth" {print $2}' "$log" | median)
echo "read bandwidth (median of $rounds probes): $bandwidth GB/s"
echo "MiB read / token: every weight once and one embedding row; for a mixture of experts the"
echo "active bytes: the router and the chosen experts only (\"active 8/128\": 8 of 128 experts)."
echo
echo "| model | MiB read / token | peak RSS MiB | pp512 tok/s | tg128 tok/s | roofline tok/s | tg / roofline |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for file in "${files[@]}"; do
    name=$(basename "$file" .gguf)
    pp=$(awk -v n="$name" '$1 == "model" && $2 == n {print $3}' "$log" | median)
    tg=$(awk -v n="$name" '$1 == "model" && $2 == n {print $4}' "$log" | median)
    bytes=$(awk -v n="$name" '$1 == "model" && $2 == n {print $5}' "$log" | head -1)
    rss=$(awk -v n="$name" '$1 == "model" && $2 == n {print $6}' "$log" | median)
    experts=$(awk -v n="$name" '$1 == "model" && $2 == n {print $7}' "$log" | head -1)
    [ "$experts" = 0/0 ] || name="$name (active $experts)"
    awk -v n="$name" -v pp="$pp" -v tg="$tg" -v b="$bytes" -v r="$rss" -v bw="$bandwidth" \
        'BEGIN {roof = bw * 1e9 / b; printf "| %s | %.1f | %d | %.1f | %.1f | %.1f | %.0f%% |\n", n, b / 1048576, r, pp, tg, roof, 100 * tg / roof}'
done
