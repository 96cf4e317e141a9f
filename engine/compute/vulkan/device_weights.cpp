#include "engine/compute/vulkan/device_weights.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "engine/model/load_error.h"

namespace hearth::vulkan {

// Uploads one tensor after another, counting bytes for the progress report.
class DeviceWeights::Uploader {
public:
    Uploader(Device& device, size_t max_piece_bytes, size_t total, const UploadProgress& progress)
        : m_device(device),
          // Buffers are padded to whole words: keep that padding inside the range too.
          m_max_piece_bytes(
              (max_piece_bytes > 0 ? max_piece_bytes : device.info().max_storage_buffer_range) - 4),
          m_total(total),
          m_progress(progress) {}

    // Pieces hold whole multiples of `unit_rows` rows (an expert's, for stacked experts).
    DeviceMatrix matrix(const WeightMatrix& weights, size_t unit_rows = 1) {
        DeviceMatrix matrix;
        matrix.type = weights.type;
        matrix.rows = static_cast<uint32_t>(weights.rows);
        matrix.columns = static_cast<uint32_t>(weights.columns);
        const size_t units = m_max_piece_bytes / std::max<size_t>(weights.row_bytes * unit_rows, 1);
        if (units == 0 && unit_rows > 1) {
            throw std::runtime_error("one expert's matrix (" +
                                     std::to_string(weights.row_bytes * unit_rows) +
                                     " bytes) is larger than a storage buffer of this GPU can be");
        }
        const size_t rows_per_piece = std::max<size_t>(1, units) * unit_rows;
        for (size_t first = 0; first < static_cast<size_t>(weights.rows); first += rows_per_piece) {
            const size_t rows = std::min(rows_per_piece, static_cast<size_t>(weights.rows) - first);
            matrix.pieces.push_back(
                {weights.strips
                     ? unpacked_buffer(weights, first, rows)
                     : buffer(weights.row(static_cast<int64_t>(first)), rows * weights.row_bytes),
                 static_cast<uint32_t>(first), static_cast<uint32_t>(rows)});
        }
        return matrix;
    }

    std::unique_ptr<Buffer> floats(const std::vector<float>& values) {
        if (values.empty()) return nullptr;
        return buffer(values.data(), values.size() * sizeof(float));
    }

    size_t uploaded() const { return m_done; }

private:
    // Rows [first, first + count) of a matrix in strips (the CPU's layout), unpacked a few
    // thousand rows at a time: a piece can be hundreds of megabytes.
    std::unique_ptr<Buffer> unpacked_buffer(const WeightMatrix& weights, size_t first,
                                            size_t count) {
        constexpr size_t kRowsAtOnce = 4096;
        auto buffer = std::make_unique<Buffer>(m_device, count * weights.row_bytes, Memory::Device);
        for (size_t done = 0; done < count; done += kRowsAtOnce) {
            const size_t rows = std::min(kRowsAtOnce, count - done);
            const std::byte* data = weights.rows_at(static_cast<int64_t>(first + done),
                                                    static_cast<int64_t>(rows), m_unpacked);
            m_device.upload(*buffer, done * weights.row_bytes, data, rows * weights.row_bytes);
        }
        count_uploaded(count * weights.row_bytes);
        return buffer;
    }

    void count_uploaded(size_t bytes) {
        m_done += bytes;
        if (m_progress && !m_progress(m_done, m_total))
            throw LoadCancelled("loading the model onto the GPU was cancelled");
    }

    std::unique_ptr<Buffer> buffer(const void* data, size_t bytes) {
        auto buffer = std::make_unique<Buffer>(m_device, bytes, Memory::Device);
        m_device.upload(*buffer, 0, data, bytes);
        count_uploaded(bytes);
        return buffer;
    }

    Device& m_device;
    size_t m_max_piece_bytes;
    size_t m_total;
    const UploadProgress& m_progress;
    size_t m_done = 0;
    std::vector<std::byte> m_unpacked;  // rows of a matrix in strips, unpacked for upload
};

namespace {

// A layer's float vectors, every one that may be uploaded.
std::array<const std::vector<float>*, 15> vectors(const LayerWeights& layer) {
    return {&layer.attention_norm,   &layer.ffn_norm,
            &layer.query_bias,       &layer.key_bias,
            &layer.value_bias,       &layer.query_norm,
            &layer.key_norm,         &layer.post_attention_norm,
            &layer.post_ffn_norm,    &layer.attention_output_bias,
            &layer.attention_sinks,  &layer.router_bias,
            &layer.expert_gate_bias, &layer.expert_up_bias,
            &layer.expert_down_bias};
}

size_t matrix_bytes(const WeightMatrix& w) {
    return static_cast<size_t>(w.rows) * w.row_bytes;
}

// A mixture-of-experts layer's router and stacked experts (empty matrices for a dense layer).
std::array<const WeightMatrix*, 4> expert_matrices(const LayerWeights& layer) {
    return {&layer.router, &layer.expert_gate, &layer.expert_up, &layer.expert_down};
}

size_t total_bytes(const ModelWeights& weights, bool tied) {
    size_t total =
        matrix_bytes(weights.token_embedding) + (tied ? 0 : matrix_bytes(weights.output));
    total += weights.output_norm.size() * sizeof(float);
    for (const auto& layer : weights.layers) {
        for (const auto* w : layer.matrices()) total += matrix_bytes(*w);
        for (const auto* w : expert_matrices(layer)) total += matrix_bytes(*w);
        for (const auto* v : vectors(layer)) total += v->size() * sizeof(float);
    }
    return total;
}

}  // namespace

DeviceWeights::DeviceWeights(Device& device, const Model& model, size_t max_piece_bytes,
                             const UploadProgress& progress) {
    const auto& weights = model.weights();
    m_tied = weights.output.data == weights.token_embedding.data;
    Uploader uploader(device, max_piece_bytes, total_bytes(weights, m_tied), progress);
    m_token_embedding = uploader.matrix(weights.token_embedding);
    if (!m_tied) m_output = uploader.matrix(weights.output);
    m_output_norm = uploader.floats(weights.output_norm);
    for (const auto& layer : weights.layers) {
        DeviceLayer& out = m_layers.emplace_back();
        out.attention_norm = uploader.floats(layer.attention_norm);
        out.ffn_norm = uploader.floats(layer.ffn_norm);
        out.query_bias = uploader.floats(layer.query_bias);
        out.key_bias = uploader.floats(layer.key_bias);
        out.value_bias = uploader.floats(layer.value_bias);
        out.query_norm = uploader.floats(layer.query_norm);
        out.key_norm = uploader.floats(layer.key_norm);
        out.post_attention_norm = uploader.floats(layer.post_attention_norm);
        out.post_ffn_norm = uploader.floats(layer.post_ffn_norm);
        out.attention_output_bias = uploader.floats(layer.attention_output_bias);
        out.attention_sinks = uploader.floats(layer.attention_sinks);
        out.query = uploader.matrix(layer.query);
        out.key = uploader.matrix(layer.key);
        out.value = uploader.matrix(layer.value);
        out.attention_output = uploader.matrix(layer.attention_output);
        out.gate = uploader.matrix(layer.gate);
        out.up = uploader.matrix(layer.up);
        out.down = uploader.matrix(layer.down);
        if (!model.config().mixture_of_experts()) continue;
        const auto experts = static_cast<size_t>(model.config().expert_count);
        out.router = uploader.matrix(layer.router);
        out.router_bias = uploader.floats(layer.router_bias);
        out.expert_gate_bias = uploader.floats(layer.expert_gate_bias);
        out.expert_up_bias = uploader.floats(layer.expert_up_bias);
        out.expert_down_bias = uploader.floats(layer.expert_down_bias);
        const auto stacked = [&](const WeightMatrix& w) {
            return uploader.matrix(w, static_cast<size_t>(w.rows) / experts);
        };
        out.expert_gate = stacked(layer.expert_gate);
        out.expert_up = stacked(layer.expert_up);
        out.expert_down = stacked(layer.expert_down);
    }
    m_bytes = uploader.uploaded();
}

}  // namespace hearth::vulkan
