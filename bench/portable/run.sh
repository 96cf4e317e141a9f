#!/bin/bash
# Runs on the other machine, from the folder pack.sh wrote (PACK) and a work folder (WORK):
#   bench/portable/run.sh PACK WORK STAGE...
# Stages, in the order they depend on each other:
#   setup                       unpack; Vulkan's loader is taken from the system or the pack
#   probe                       processor, memory, GPU, compilers
#   llama                       llama.cpp's CPU build, native to this machine (needs g++, cmake)
#   models                      TinyLlama and SmolLM shapes, F16 then Q4_0, Q4_K_M, Q8_0
#   bandwidth                   hearth-bandwidth at 1, 4, 8 and 16 threads
#   "compare T1,T2 ROUNDS M..." hearth-bench against llama-bench on the CPU (models by name)
#   "vulkan ROUNDS M..."        the same on the Vulkan backends (needs llama-vulkan.tar.xz)
#   "serve MODEL THREADS"       hearth-serve-bench, 1 to 16 streams
# Results go to WORK/results.
set -u
pack=$(cd "${1:?usage: run.sh PACK WORK STAGE...}" && pwd)
work=${2:?work folder}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work/models" "$work/results"
export LD_LIBRARY_PATH=$work/hearth/lib
log() { echo "== $(date +%T) $*"; }

setup() {
    mkdir -p "$work/hearth" "$work/inputs"
    tar -C "$work/hearth" -xJf "$pack/hearth.tar.xz"
    tar -C "$work/inputs" -xJf "$pack/inputs.tar.xz"
    if [ -f "$pack/llama-vulkan.tar.xz" ]; then
        mkdir -p "$work/vulkan" && tar -C "$work/vulkan" -xJf "$pack/llama-vulkan.tar.xz"
    fi
}

probe() {
    nproc
    lscpu | grep -E "Model name|Socket|Core|Thread|NUMA|L3"
    grep -o -w -E "avx512f|avx512_vnni|avx512vbmi|amx_int8|avx_vnni" /proc/cpuinfo | sort | uniq -c
    free -g | head -2
    command -v nvidia-smi >/dev/null && nvidia-smi -L
    for tool in gcc g++ cmake ninja python3; do echo "$tool: $(command -v $tool)"; done
}

llama() {
    [ -x "$work/llama/build/bin/llama-bench" ] && return
    rm -rf "$work/llama" && mkdir -p "$work/llama" && tar -C "$work/llama" -xJf "$pack/llama-src.tar.xz"
    (cd "$work/llama" && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_UI=OFF \
        -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_CURL=OFF \
        >"$work/llama-config.log" 2>&1 &&
        cmake --build build -j"$(nproc)" --target llama-bench llama-quantize >"$work/llama-build.log" 2>&1) ||
        { tail -n 30 "$work/llama-config.log" "$work/llama-build.log"; return 1; }
}

models() {
    local quantize=$work/llama/build/bin/llama-quantize vocab=$work/inputs/fixtures/tokenizer/ggml-vocab-llama-spm.gguf
    [ -x "$quantize" ] || quantize=$work/vulkan/bin/llama-quantize
    for shape in tinyllama-1.1b smollm-135m; do
        local name=${shape%%-*}
        [ -f "$work/models/$name-f16.gguf" ] ||
            python3 "$work/inputs/make_synth.py" --shape $shape --vocab "$vocab" --dtype f16 \
                --out "$work/models/$name-f16.gguf" || return 1
        for type in Q4_0 Q4_K_M Q8_0; do
            [ -f "$work/models/$name-$type.gguf" ] ||
                LD_LIBRARY_PATH=$(dirname "$quantize") "$quantize" "$work/models/$name-f16.gguf" \
                    "$work/models/$name-$type.gguf" $type "$(nproc)" >/dev/null 2>&1
        done
    done
    ls -la "$work/models"
}

bandwidth() {
    for threads in 1 4 8 16; do
        "$work/hearth/bin/hearth-bandwidth" -t $threads | tee -a "$work/results/bandwidth.log"
    done
}

files() { for name in "$@"; do echo "$work/models/$name.gguf"; done; }

compare() {  # compare THREADS ROUNDS MODEL...
    local threads=$1 rounds=$2
    shift 2
    RESULTS=$work/results python3 "$here/compare_threads.py" "$work/hearth/bin/hearth-bench" \
        "$work/llama/build/bin/llama-bench" --backend cpu --threads $threads --rounds $rounds \
        $(files "$@") 2>>"$work/results/compare.log"
}

vulkan() {  # vulkan ROUNDS MODEL...
    local rounds=$1
    shift
    RESULTS=$work/results python3 "$here/compare_threads.py" "$work/hearth/bin/hearth-bench" \
        "$work/vulkan/bin/llama-bench" --backend vulkan --threads "$(nproc)" --rounds $rounds \
        $(files "$@") 2>>"$work/results/compare.log"
}

serve() {  # serve MODEL THREADS
    "$work/hearth/bin/hearth-serve-bench" -m "$work/models/$1.gguf" --streams 1,2,4,8,16 -n 32 -r 2 \
        -t $2 | tee -a "$work/results/serve.log"
}

for stage in "$@"; do
    log "$stage"
    read -r -a words <<<"$stage"
    case ${words[0]} in
        setup | probe | llama | models | bandwidth | compare | vulkan | serve) "${words[@]}" ;;
        *) echo "unknown stage: ${words[0]}" >&2; exit 2 ;;
    esac
done
