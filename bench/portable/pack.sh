#!/bin/bash
# Packs what bench/portable/run.sh needs on another x86-64 Linux machine that has no Debian
# packages of ours and no network: Hearth's benchmark binaries with every shared library they
# load beyond the C and C++ runtimes (which a newer glibc system provides), the llama.cpp source
# to build natively there, and the inputs of ../shared/tools/make_synth.py.
# Usage: bench/portable/pack.sh BUILD_DIR LLAMA_CPP_CHECKOUT OUT_DIR [LLAMA_VULKAN_BIN_DIR]
set -euo pipefail
build=${1:?usage: pack.sh BUILD_DIR LLAMA_CPP_CHECKOUT OUT_DIR [LLAMA_VULKAN_BIN_DIR]}
llama=${2:?llama.cpp checkout}
out=${3:?output folder}
vulkan_bin=${4:-}
shared=$(cd "$(dirname "$0")/../../../shared" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out" "$stage/hearth/bin" "$stage/hearth/lib" "$stage/inputs/fixtures/tokenizer"

for program in hearth-bench hearth-bandwidth hearth-serve-bench; do
    strip -o "$stage/hearth/bin/$program" "$build/bench/$program"
done
for program in "$stage"/hearth/bin/*; do ldd "$program" | awk '/=>/ {print $1, $3}'; done | sort -u |
    while read -r name path; do
        case $name in libc.so* | libm.so* | libstdc++* | libgcc_s* | libz.so*) continue ;; esac
        cp -L "$path" "$stage/hearth/lib/$name"
    done
tar -C "$stage/hearth" -cJf "$out/hearth.tar.xz" bin lib

# The CPU backend only: the other backends' sources are most of ggml and are not built there.
tar -C "$llama" --exclude='ggml/src/ggml-cuda' --exclude='ggml/src/ggml-sycl' \
    --exclude='ggml/src/ggml-metal' --exclude='ggml/src/ggml-cann' --exclude='ggml/src/ggml-musa' \
    --exclude='ggml/src/ggml-opencl' --exclude='ggml/src/ggml-hip' --exclude='ggml/src/ggml-webgpu' \
    -cJf "$out/llama-src.tar.xz" CMakeLists.txt cmake ggml src include common tools vendor licenses

cp "$shared/tools/make_synth.py" "$stage/inputs/"
cp "$shared/fixtures/tokenizer/ggml-vocab-llama-spm.gguf" "$stage/inputs/fixtures/tokenizer/"
tar -C "$stage/inputs" -cJf "$out/inputs.tar.xz" .

# A llama.cpp Vulkan build, made here (its shaders need a newer glslc than the target may have).
if [ -n "$vulkan_bin" ]; then
    mkdir -p "$stage/vulkan/bin"
    cp -a "$vulkan_bin"/llama-bench "$vulkan_bin"/llama-quantize "$vulkan_bin"/lib*.so* "$stage/vulkan/bin/"
    tar -C "$stage/vulkan" -cJf "$out/llama-vulkan.tar.xz" bin
fi
du -sh "$out"/*
