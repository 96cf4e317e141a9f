// A model's weights in device memory, uploaded once: matrices in their file's format (the
// shaders dequantise), norms and biases as floats. A matrix larger than the device's
// storage-buffer range (128 MiB on lavapipe) is kept in pieces of whole rows.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/compute/vulkan/device.h"
#include "engine/model/model.h"

namespace hearth::vulkan {

struct DeviceMatrix {
    struct Piece {
        std::unique_ptr<Buffer> buffer;
        uint32_t first_row = 0;
        uint32_t rows = 0;
    };
    TensorType type = TensorType::F32;
    uint32_t rows = 0;
    uint32_t columns = 0;
    std::vector<Piece> pieces;
};

struct DeviceLayer {
    std::unique_ptr<Buffer> attention_norm, ffn_norm;
    std::unique_ptr<Buffer> query_bias, key_bias, value_bias;  // null when the model has none
    std::unique_ptr<Buffer> query_norm, key_norm;              // per-head norms (head_dim), or null
    std::unique_ptr<Buffer> post_attention_norm, post_ffn_norm;  // Gemma's (dim), or null
    // gpt-oss's, else null: the attention output's bias (dim), a sink logit per head, the
    // router's bias and each expert's biases stacked as its matrices are.
    std::unique_ptr<Buffer> attention_output_bias, attention_sinks;
    std::unique_ptr<Buffer> router_bias, expert_gate_bias, expert_up_bias, expert_down_bias;
    DeviceMatrix query, key, value, attention_output, gate, up, down;
    // Mixture of experts, else empty: the router, and the stacked expert matrices in pieces of
    // whole experts (the grouped product reads one expert's rows from one buffer).
    DeviceMatrix router, expert_gate, expert_up, expert_down;
};

// Told the bytes uploaded so far; returning false cancels the upload (LoadCancelled).
using UploadProgress = std::function<bool(size_t done, size_t total)>;

class DeviceWeights {
public:
    // `max_piece_bytes` 0: the device's storage-buffer range.
    DeviceWeights(Device& device, const Model& model, size_t max_piece_bytes,
                  const UploadProgress& progress);

    const DeviceMatrix& token_embedding() const { return m_token_embedding; }
    const DeviceMatrix& output() const { return m_tied ? m_token_embedding : m_output; }
    const std::vector<DeviceLayer>& layers() const { return m_layers; }
    const Buffer& output_norm() const { return *m_output_norm; }
    size_t bytes() const { return m_bytes; }

private:
    class Uploader;

    DeviceMatrix m_token_embedding, m_output;
    bool m_tied = false;
    std::vector<DeviceLayer> m_layers;
    std::unique_ptr<Buffer> m_output_norm;
    size_t m_bytes = 0;
};

}  // namespace hearth::vulkan
