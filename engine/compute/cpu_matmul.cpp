#include "engine/compute/cpu_matmul.h"

#include <cblas.h>

#include <algorithm>

#include "engine/format/tensor_types.h"

namespace hearth {

namespace {

constexpr size_t kTileRows = 256;  // weight rows dequantised per sgemm call

// Whether a product of `count` tokens runs on the panel kernels (run_group decides with it,
// Scratch counts with it).
bool uses_panel(const kernels::GemmTable* gemm, MatmulThresholds thresholds, const WeightMatrix& w,
                int count) {
    return gemm != nullptr && count >= thresholds.panel &&
           gemm->gemm[static_cast<uint32_t>(w.type)] != nullptr;
}

}  // namespace

CpuMatmul::CpuMatmul(ThreadPool& pool, kernels::Isa isa, MatmulThresholds thresholds)
    : m_pool(pool),
      m_dots(kernels::dot_table(isa)),
      m_gemm(kernels::gemm_table(isa)),
      m_thresholds(thresholds) {}

void CpuMatmul::add_bias(float* rows, std::span<const float> bias, int count) {
    for (size_t t = 0; t < static_cast<size_t>(count); ++t) {
        float* row = rows + t * bias.size();
        for (size_t i = 0; i < bias.size(); ++i) row[i] += bias[i];
    }
}

size_t CpuMatmul::allocated_bytes() const {
    return m_activations.size() + m_panel.size() * sizeof(kernels::PanelBlock) +
           m_weight_tile.size() * sizeof(float);
}

CpuMatmul::Scratch::Scratch(kernels::Isa isa, MatmulThresholds thresholds)
    : m_dots(kernels::dot_table(isa)), m_gemm(kernels::gemm_table(isa)), m_thresholds(thresholds) {}

// Mirrors run_group: the buffer each product uses, at its widest.
void CpuMatmul::Scratch::add(std::initializer_list<const WeightMatrix*> group, int count) {
    std::vector<kernels::ActivationFormat> formats;
    size_t quantised = 0;
    for (const auto* w : group) {
        const auto id = static_cast<uint32_t>(w->type);
        const size_t columns = static_cast<size_t>(w->columns);
        if (uses_panel(m_gemm, m_thresholds, *w, count)) {
            m_panel = std::max(m_panel,
                               kernels::panel_blocks(count, columns) * sizeof(kernels::PanelBlock));
        } else if (count >= m_thresholds.blas) {
            m_tile = std::max(m_tile, kTileRows * columns * sizeof(float));
        } else if (std::find(formats.begin(), formats.end(), m_dots.format[id]) == formats.end()) {
            formats.push_back(m_dots.format[id]);
            quantised += kernels::activation_row_bytes(m_dots.format[id], columns) * count;
        }
    }
    m_activations = std::max(m_activations, quantised);
}

void CpuMatmul::run(const WeightMatrix& w, const float* in, int count, int path_tokens,
                    float* out) {
    run_group({{&w, out}}, in, count, path_tokens);
}

void CpuMatmul::run_group(std::initializer_list<Product> products, const float* in, int count,
                          int path_tokens) {
    Product panel[4], other[4];
    size_t panel_count = 0, other_count = 0;
    for (const auto& product : products) {
        if (uses_panel(m_gemm, m_thresholds, *product.weights, path_tokens)) {
            panel[panel_count++] = product;
        } else {
            other[other_count++] = product;
        }
    }
    if (panel_count > 0) run_panel(std::span(panel, panel_count), in, count);
    if (other_count == 0) return;
    if (path_tokens >= m_thresholds.blas) {
        for (size_t p = 0; p < other_count; ++p) {
            run_blas(*other[p].weights, in, count, other[p].out);
        }
        return;
    }
    run_dots(std::span(other, other_count), in, count);
}

// Rows are handed out in units: groups of kernels::kDotRows rows for formats with a row kernel
// (the last group of a product may be partial), single rows for the others. A row's numbers are
// the same in any unit, so how the pool splits them never shows.
void CpuMatmul::run_dots(std::span<const Product> products, const float* in, int count) {
    struct Part {
        const WeightMatrix* w;
        float* out;
        kernels::DotFunction dot;
        kernels::DotManyFunction dot_many;
        kernels::DotRowsFunction dot_rows;
        size_t activation_offset, stride, first_unit, unit_rows;
    };
    Part parts[4];
    size_t part_count = 0, total_units = 0, used = 0;
    const size_t columns = static_cast<size_t>(products.front().weights->columns);
    kernels::ActivationFormat prepared[4];
    size_t prepared_offset[4];
    size_t prepared_count = 0;
    for (const auto& product : products) {
        const auto id = static_cast<uint32_t>(product.weights->type);
        const auto format = m_dots.format[id];
        const size_t stride = kernels::activation_row_bytes(format, columns);
        size_t offset = used;
        const auto found = std::find(prepared, prepared + prepared_count, format);
        if (found != prepared + prepared_count) {
            offset = prepared_offset[found - prepared];
        } else {
            prepared[prepared_count] = format;
            prepared_offset[prepared_count++] = used;
            used += stride * count;
        }
        const size_t unit_rows = m_dots.dot_rows[id] != nullptr ? kernels::kDotRows : 1;
        parts[part_count++] = {product.weights,
                               product.out,
                               m_dots.dot[id],
                               m_dots.dot_many[id],
                               m_dots.dot_rows[id],
                               offset,
                               stride,
                               total_units,
                               unit_rows};
        const size_t rows = static_cast<size_t>(product.weights->rows);
        total_units += (rows + unit_rows - 1) / unit_rows;
    }
    if (m_activations.size() < used) m_activations.resize(used);
    for (size_t p = 0; p < prepared_count; ++p) {
        const size_t stride = kernels::activation_row_bytes(prepared[p], columns);
        for (int t = 0; t < count; ++t) {
            kernels::prepare_activations(prepared[p], in + t * columns,
                                         m_activations.data() + prepared_offset[p] + t * stride,
                                         columns);
        }
    }
    const std::byte* activations = m_activations.data();
    // About sixteen rows to a grain, whatever the unit.
    const size_t grain = std::max<size_t>(1, 16 / parts[0].unit_rows);
    m_pool.parallel_for(total_units, grain, [&](size_t begin, size_t end) {
        for (size_t p = 0; p < part_count; ++p) {
            const Part& part = parts[p];
            const size_t rows = static_cast<size_t>(part.w->rows);
            const size_t units = (rows + part.unit_rows - 1) / part.unit_rows;
            const size_t first = std::max(begin, part.first_unit),
                         last = std::min(end, part.first_unit + units);
            const std::byte* tokens = activations + part.activation_offset;
            for (size_t unit = first; unit < last; ++unit) {
                const size_t r = (unit - part.first_unit) * part.unit_rows;
                const std::byte* row = part.w->row(static_cast<int64_t>(r));
                if (part.dot_rows != nullptr) {
                    // Each block of the rows is unpacked once for every token, and each
                    // (row, token) still gets its single dot's numbers bit for bit.
                    part.dot_rows(row, part.w->row_bytes, std::min(part.unit_rows, rows - r),
                                  tokens, part.stride, static_cast<size_t>(count), part.out + r,
                                  rows, columns);
                } else if (count == 1) {
                    part.out[r] = part.dot(row, tokens, columns);
                } else {
                    // Unpacks the row once per group of tokens; each token's result is still
                    // bit for bit its single dot's, so a batch's rows never change each other.
                    part.dot_many(row, tokens, part.stride, static_cast<size_t>(count),
                                  part.out + r, rows, columns);
                }
            }
        }
    });
}

// The panel is packed once for the group (split over the pool), then the products' rows are
// handed out in tiles of 16, each thread running the kernel over its tiles for every token.
void CpuMatmul::run_panel(std::span<const Product> products, const float* in, int count) {
    constexpr size_t kRowTile = 16;
    const size_t columns = static_cast<size_t>(products.front().weights->columns);
    const size_t tokens = static_cast<size_t>(count);
    const size_t blocks = kernels::panel_blocks(tokens, columns);
    if (m_panel.size() < blocks) m_panel.resize(blocks);
    kernels::PanelBlock* panel = m_panel.data();
    m_pool.parallel_for(blocks, 8, [&](size_t begin, size_t end) {
        m_gemm->pack(in, tokens, columns, panel, begin, end);
    });
    size_t first_tile[5] = {};
    for (size_t p = 0; p < products.size(); ++p) {
        const size_t rows = static_cast<size_t>(products[p].weights->rows);
        first_tile[p + 1] = first_tile[p] + (rows + kRowTile - 1) / kRowTile;
    }
    m_pool.parallel_for(first_tile[products.size()], 1, [&](size_t begin, size_t end) {
        for (size_t p = 0; p < products.size(); ++p) {
            const size_t from = std::max(begin, first_tile[p]),
                         to = std::min(end, first_tile[p + 1]);
            if (from >= to) continue;
            const WeightMatrix& w = *products[p].weights;
            const size_t rows = static_cast<size_t>(w.rows);
            const size_t first_row = (from - first_tile[p]) * kRowTile;
            const size_t last_row = std::min(rows, (to - first_tile[p]) * kRowTile);
            m_gemm->gemm[static_cast<uint32_t>(w.type)](
                w.row(static_cast<int64_t>(first_row)), w.row_bytes, last_row - first_row, panel,
                tokens, columns, products[p].out + first_row, rows);
        }
    });
}

// Prefill: each tile of weight rows is dequantised once (split over the pool) and multiplied with
// all of the chunk's activations in one sgemm, which OpenBLAS threads itself.
void CpuMatmul::run_blas(const WeightMatrix& w, const float* in, int count, float* out) {
    const size_t columns = static_cast<size_t>(w.columns);
    const size_t rows = static_cast<size_t>(w.rows);
    if (m_weight_tile.size() < kTileRows * columns) m_weight_tile.resize(kTileRows * columns);
    for (size_t first = 0; first < rows; first += kTileRows) {
        const size_t tile = std::min(kTileRows, rows - first);
        m_pool.parallel_for(tile, 8, [&](size_t begin, size_t end) {
            for (size_t r = begin; r < end; ++r) {
                dequantize(w.type, w.row(static_cast<int64_t>(first + r)),
                           &m_weight_tile[r * columns], columns);
            }
        });
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, count, static_cast<int>(tile),
                    static_cast<int>(columns), 1.0f, in, static_cast<int>(columns),
                    m_weight_tile.data(), static_cast<int>(columns), 0.0f, out + first,
                    static_cast<int>(rows));
    }
}

}  // namespace hearth
