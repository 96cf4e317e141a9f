#include "engine/model/strip_layout.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/format/tensor_types.h"
#include "kernels/strips.h"

namespace hearth {
namespace {

// The products the CPU backend runs as whole matrices. Phi-3's fused attn_qkv is left out (its
// slices need not fall on strips); its fused ffn_up is in where both halves fill whole strips
// (repacked_into_strips).
bool multiplied_whole(std::string_view name) {
    if (name == "output.weight") return true;
    constexpr std::array kMatrices{".attn_q.weight",      ".attn_k.weight",   ".attn_v.weight",
                                   ".attn_output.weight", ".ffn_gate.weight", ".ffn_up.weight",
                                   ".ffn_down.weight"};
    for (const auto matrix : kMatrices) {
        if (name.ends_with(matrix)) return name.starts_with("blk.");
    }
    return false;
}

// Repacks one tensor in place, a strip at a time: a strip takes the bytes of its sixteen rows,
// so only those rows need copying out first.
void repack_tensor(std::byte* data, const GgufTensor& tensor, std::vector<std::byte>& rows) {
    const size_t columns = tensor.row_length();
    const size_t row_bytes = tensor_bytes(tensor.type, columns);
    const size_t strip_bytes = kernels::kStripRows * row_bytes;
    rows.resize(strip_bytes);
    for (size_t offset = 0; offset < tensor.bytes; offset += strip_bytes) {
        std::memcpy(rows.data(), data + offset, strip_bytes);
        kernels::repack_strips(static_cast<int>(tensor.type), rows.data(), row_bytes,
                               kernels::kStripRows, columns, data + offset);
    }
}

// Repacks every tensor the layout takes, the tensors shared out among the machine's cores: one
// core repacked TinyLlama's 607 MiB in 0.2-0.5 s, which a 7B model would multiply by six.
void repack_file(std::span<std::byte> bytes, const std::filesystem::path& path) {
    const GgufFile header(GgufBeginning{bytes, bytes.size(), path.string()});
    std::vector<const GgufTensor*> tensors;
    for (const auto& tensor : header.tensors()) {
        if (repacked_into_strips(tensor)) tensors.push_back(&tensor);
    }
    std::atomic<size_t> next{0};
    std::mutex failure_mutex;
    std::exception_ptr failure;
    const auto repack = [&] {
        try {
            std::vector<std::byte> rows;
            for (size_t index = next++; index < tensors.size(); index = next++) {
                repack_tensor(bytes.data() + header.data_offset() + tensors[index]->offset,
                              *tensors[index], rows);
            }
        } catch (...) {  // a helper's exception would end the process: the load throws it
            next = tensors.size();
            const std::lock_guard lock(failure_mutex);
            if (!failure) failure = std::current_exception();
        }
    };
    {
        const size_t helpers = std::min<size_t>(std::thread::hardware_concurrency(), 8);
        std::vector<std::jthread> threads;
        for (size_t h = 1; h < helpers; ++h) threads.emplace_back(repack);
        repack();
    }
    if (failure) std::rethrow_exception(failure);
}

}  // namespace

bool repacked_into_strips(const GgufTensor& tensor) {
    // ffn_up may be Phi-3's gate and up in one, cut in half: each half must fill whole strips.
    const uint64_t rows_per_strip =
        tensor.name.ends_with(".ffn_up.weight") ? 2 * kernels::kStripRows : kernels::kStripRows;
    return kernels::has_strip_layout(static_cast<int>(tensor.type)) && tensor.shape.size() == 2 &&
           tensor.rows() > 0 && tensor.rows() % rows_per_strip == 0 &&
           tensor.row_length() % tensor_type_info(tensor.type).block_elements == 0 &&
           multiplied_whole(tensor.name);
}

bool loaded_in_strips(const GgufTensor& tensor) {
    return tensor.layout == kStripLayout && repacked_into_strips(tensor);
}

std::shared_ptr<const ByteRewrite> strip_layout() {
    return std::make_shared<const ByteRewrite>(ByteRewrite{std::string(kStripLayout), repack_file});
}

}  // namespace hearth
