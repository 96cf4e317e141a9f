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

// Whether a product of `count` tokens runs on the integer dots.
bool uses_dots(const kernels::GemmTable* gemm, MatmulThresholds thresholds, const WeightMatrix& w,
               int count) {
    return !uses_panel(gemm, thresholds, w, count) && count < thresholds.blas;
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
void CpuMatmul::Scratch::add(std::initializer_list<const WeightMatrix*> group, int count,
                             int path_tokens) {
    std::vector<kernels::ActivationFormat> formats;
    size_t quantised = 0;
    for (const auto* w : group) {
        const auto id = static_cast<uint32_t>(w->type);
        const size_t columns = static_cast<size_t>(w->columns);
        if (uses_panel(m_gemm, m_thresholds, *w, path_tokens)) {
            m_panel = std::max(m_panel,
                               kernels::panel_blocks(count, columns) * sizeof(kernels::PanelBlock));
        } else if (path_tokens >= m_thresholds.blas) {
            m_tile = std::max(m_tile, kTileRows * columns * sizeof(float));
        } else if (std::find(formats.begin(), formats.end(), m_dots.format[id]) == formats.end()) {
            formats.push_back(m_dots.format[id]);
            quantised += kernels::activation_row_bytes(m_dots.format[id], columns) * count;
        }
    }
    m_activations = std::max(m_activations, quantised);
}

bool CpuMatmul::takes_dots(const WeightMatrix& w, int path_tokens) const {
    return uses_dots(m_gemm, m_thresholds, w, path_tokens);
}

bool CpuMatmul::Scratch::takes_dots(const WeightMatrix& w, int path_tokens) const {
    return uses_dots(m_gemm, m_thresholds, w, path_tokens);
}

void CpuMatmul::Scratch::add_jobs(std::initializer_list<const WeightMatrix*> group, int rows) {
    std::vector<kernels::ActivationFormat> formats;
    size_t quantised = 0;
    for (const auto* w : group) {
        const auto format = m_dots.format[static_cast<uint32_t>(w->type)];
        if (std::find(formats.begin(), formats.end(), format) != formats.end()) continue;
        formats.push_back(format);
        quantised += kernels::activation_row_bytes(format, static_cast<size_t>(w->columns)) *
                     static_cast<size_t>(rows);
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

void CpuMatmul::run_dots(std::span<const Product> products, const float* in, int count) {
    m_jobs.clear();
    for (const auto& product : products)
        m_jobs.push_back({product.weights, in, count, product.out});
    run_jobs(m_jobs);
}

// Rows are handed out in units: groups of kernels::kDotRows rows for formats with a row kernel
// (the last group of a product may be partial), single rows for the others. A row's numbers are
// the same in any unit, and in any company of other jobs, so how the pool splits them never
// shows.
void CpuMatmul::run_jobs(std::span<const Job> jobs) {
    m_parts.clear();
    m_prepared.clear();
    size_t total_units = 0, used = 0;
    for (const auto& job : jobs) {
        const auto id = static_cast<uint32_t>(job.weights->type);
        const auto format = m_dots.format[id];
        const size_t columns = static_cast<size_t>(job.weights->columns);
        const size_t stride = kernels::activation_row_bytes(format, columns);
        const auto found = std::find_if(m_prepared.begin(), m_prepared.end(), [&](const auto& p) {
            return p.in == job.in && p.count == job.count && p.columns == columns &&
                   p.format == format;
        });
        size_t offset = used;
        if (found != m_prepared.end()) {
            offset = found->offset;
        } else {
            m_prepared.push_back({job.in, job.count, columns, format, used});
            used += stride * static_cast<size_t>(job.count);
        }
        const size_t unit_rows = m_dots.dot_rows[id] != nullptr ? kernels::kDotRows : 1;
        m_parts.push_back({job, m_dots.dot[id], m_dots.dot_many[id], m_dots.dot_rows[id], offset,
                           stride, total_units, unit_rows});
        const size_t rows = static_cast<size_t>(job.weights->rows);
        total_units += (rows + unit_rows - 1) / unit_rows;
    }
    if (m_activations.size() < used) m_activations.resize(used);
    for (const auto& prepared : m_prepared) {
        const size_t stride = kernels::activation_row_bytes(prepared.format, prepared.columns);
        for (size_t t = 0; t < static_cast<size_t>(prepared.count); ++t) {
            kernels::prepare_activations(prepared.format, prepared.in + t * prepared.columns,
                                         m_activations.data() + prepared.offset + t * stride,
                                         prepared.columns);
        }
    }
    const std::byte* activations = m_activations.data();
    const std::span<const DotPart> parts(m_parts);
    // About sixteen rows to a grain, whatever the unit.
    const size_t grain = std::max<size_t>(1, 16 / parts.front().unit_rows);
    m_pool.parallel_for(total_units, grain, [&](size_t begin, size_t end) {
        // The first part with units in [begin, end), then each after it that starts before end.
        auto part =
            std::upper_bound(parts.begin(), parts.end(), begin,
                             [](size_t unit, const DotPart& p) { return unit < p.first_unit; }) -
            1;
        for (; part != parts.end() && part->first_unit < end; ++part) {
            const Job& job = part->job;
            const size_t rows = static_cast<size_t>(job.weights->rows);
            const size_t columns = static_cast<size_t>(job.weights->columns);
            const size_t count = static_cast<size_t>(job.count);
            const size_t units = (rows + part->unit_rows - 1) / part->unit_rows;
            const size_t first = std::max(begin, part->first_unit),
                         last = std::min(end, part->first_unit + units);
            const std::byte* tokens = activations + part->activation_offset;
            for (size_t unit = first; unit < last; ++unit) {
                const size_t r = (unit - part->first_unit) * part->unit_rows;
                const std::byte* row = job.weights->row(static_cast<int64_t>(r));
                if (part->dot_rows != nullptr) {
                    // Each block of the rows is unpacked once for every token, and each
                    // (row, token) still gets its single dot's numbers bit for bit.
                    part->dot_rows(row, job.weights->row_bytes, std::min(part->unit_rows, rows - r),
                                   tokens, part->stride, count, job.out + r, rows, columns);
                } else if (count == 1) {
                    job.out[r] = part->dot(row, tokens, columns);
                } else {
                    // Unpacks the row once per group of tokens; each token's result is still
                    // bit for bit its single dot's, so a batch's rows never change each other.
                    part->dot_many(row, tokens, part->stride, count, job.out + r, rows, columns);
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
