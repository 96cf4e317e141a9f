#include "engine/compute/cpu_matmul.h"

#include <cblas.h>

#include <algorithm>

#include "engine/format/tensor_types.h"

namespace hearth {

namespace {

constexpr size_t kTileRows = 256;  // weight rows dequantised per sgemm call

// Whether a product of `count` tokens runs on the panel kernels (run_group decides with it,
// Scratch counts with it). Panels read rows: strips never take them.
bool uses_panel(const kernels::GemmTable* gemm, MatmulThresholds thresholds, const WeightMatrix& w,
                int count) {
    return !w.strips && gemm != nullptr && count >= thresholds.panel &&
           gemm->gemm[static_cast<uint32_t>(w.type)] != nullptr;
}

// Whether a product of `count` tokens runs on the integer dots. Strips take them at every size:
// AMX's tile products for sixteen tokens beat the panel kernels (49 against 71 µs a token for
// 5632 x 2048 on one core of the Xeon of stop 43), and so do IQ4_XS's VNNI strip passes of eight
// (TinyLlama IQ4_XS pp512: 225-227 tok/s, against 213-225 with the panel kernels reading rows
// unpacked from the strips 128 at a time; SmolLM IQ4_XS 1489-1797 against 1330-1578).
bool uses_dots(const kernels::GemmTable* gemm, MatmulThresholds thresholds, const WeightMatrix& w,
               int count) {
    return w.strips || (!uses_panel(gemm, thresholds, w, count) && count < thresholds.blas);
}

// The activations a matrix's dots read: the strip kernel's for strips where the CPU has one.
kernels::ActivationFormat dot_format(const kernels::DotTable& dots,
                                     const CpuMatmul::StripKernels& strip_kernels,
                                     const WeightMatrix& w) {
    if (strip_kernels(w) != nullptr)
        return kernels::strip_activation_format(static_cast<int>(w.type));
    return dots.format[static_cast<uint32_t>(w.type)];
}

// From how many tokens a step's activations are quantised across the pool.
constexpr size_t kParallelPrepareTokens = 16;

}  // namespace

CpuMatmul::StripKernels::StripKernels(kernels::Isa isa) {
    for (int type = 0; type < kernels::DotTable::kTypes; ++type)
        of[type] = kernels::strip_rows(type, isa);
}

CpuMatmul::CpuMatmul(ThreadPool& pool, kernels::Isa isa, MatmulThresholds thresholds)
    : m_pool(pool),
      m_dots(kernels::dot_table(isa)),
      m_gemm(kernels::gemm_table(isa)),
      m_strip_kernels(isa),
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
    : m_dots(kernels::dot_table(isa)),
      m_gemm(kernels::gemm_table(isa)),
      m_strip_kernels(isa),
      m_thresholds(thresholds) {}

// Mirrors run_group: the buffer each product uses, at its widest.
void CpuMatmul::Scratch::add(std::initializer_list<const WeightMatrix*> group, int count,
                             int path_tokens) {
    std::vector<kernels::ActivationFormat> formats;
    size_t quantised = 0;
    for (const auto* w : group) {
        const size_t columns = static_cast<size_t>(w->columns);
        const auto format = dot_format(m_dots, m_strip_kernels, *w);
        if (uses_panel(m_gemm, m_thresholds, *w, path_tokens)) {
            m_panel = std::max(m_panel,
                               kernels::panel_blocks(count, columns) * sizeof(kernels::PanelBlock));
        } else if (!uses_dots(m_gemm, m_thresholds, *w, path_tokens)) {
            m_tile = std::max(m_tile, kTileRows * columns * sizeof(float));
        } else if (std::find(formats.begin(), formats.end(), format) == formats.end()) {
            formats.push_back(format);
            quantised += kernels::activation_row_bytes(format, columns) * count;
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
        const auto format = dot_format(m_dots, m_strip_kernels, *w);
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
    Product panel[4], dots[4];
    size_t panel_count = 0, dots_count = 0;
    for (const auto& product : products) {
        if (uses_panel(m_gemm, m_thresholds, *product.weights, path_tokens)) {
            panel[panel_count++] = product;
        } else if (uses_dots(m_gemm, m_thresholds, *product.weights, path_tokens)) {
            dots[dots_count++] = product;
        } else {
            run_blas(*product.weights, in, count, product.out);
        }
    }
    if (panel_count > 0) run_panel(std::span(panel, panel_count), in, count);
    if (dots_count > 0) run_dots(std::span(dots, dots_count), in, count);
}

void CpuMatmul::run_dots(std::span<const Product> products, const float* in, int count) {
    m_jobs.clear();
    for (const auto& product : products)
        m_jobs.push_back({product.weights, in, count, product.out});
    run_jobs(m_jobs);
}

// Rows are handed out in units: strips for matrices in strips, groups of kernels::kDotRows rows
// for formats with a row kernel (the last group of a product may be partial), single rows for the
// others. A row's numbers are the same in any unit, and in any company of other jobs, so how the
// pool splits them never shows; each strip kernel equals its scalar twin bit for bit.
void CpuMatmul::run_jobs(std::span<const Job> jobs) {
    m_parts.clear();
    m_prepared.clear();
    size_t total_units = 0, used = 0;
    for (const auto& job : jobs) {
        const auto id = static_cast<uint32_t>(job.weights->type);
        const auto format = dot_format(m_dots, m_strip_kernels, *job.weights);
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
        const bool strips = job.weights->strips;
        const size_t unit_rows = strips                           ? kernels::kStripRows
                                 : m_dots.dot_rows[id] != nullptr ? kernels::kDotRows
                                                                  : 1;
        m_parts.push_back({job, m_dots.dot[id], m_dots.dot_many[id], m_dots.dot_rows[id],
                           m_strip_kernels(*job.weights), offset, stride, total_units, unit_rows});
        const size_t rows = static_cast<size_t>(job.weights->rows);
        total_units += (rows + unit_rows - 1) / unit_rows;
    }
    if (m_activations.size() < used) m_activations.resize(used);
    for (const auto& prepared : m_prepared) {
        const size_t stride = kernels::activation_row_bytes(prepared.format, prepared.columns);
        const auto prepare = [&](size_t begin, size_t end) {
            for (size_t t = begin; t < end; ++t) {
                kernels::prepare_activations(prepared.format, prepared.in + t * prepared.columns,
                                             m_activations.data() + prepared.offset + t * stride,
                                             prepared.columns);
            }
        };
        const auto tokens = static_cast<size_t>(prepared.count);
        // A prefill chunk's quantisation on one thread cost 3% of pp512 beside the strips.
        if (tokens >= kParallelPrepareTokens) {
            m_pool.parallel_for(tokens, 4, prepare);
        } else {
            prepare(0, tokens);
        }
    }
    const std::byte* activations = m_activations.data();
    const std::span<const DotPart> parts(m_parts);
    // About sixteen rows to a grain, whatever the unit.
    const size_t grain = std::max<size_t>(1, 16 / parts.front().unit_rows);
    m_pool.parallel_for(total_units, grain, [&](size_t begin, size_t end) {
        std::vector<std::byte> unpacked;  // strips as rows, where this CPU has no strip kernel
        // The first part with units in [begin, end), then each after it that starts before end.
        auto part =
            std::upper_bound(parts.begin(), parts.end(), begin,
                             [](size_t unit, const DotPart& p) { return unit < p.first_unit; }) -
            1;
        for (; part != parts.end() && part->first_unit < end; ++part) {
            const Job& job = part->job;
            const size_t rows = static_cast<size_t>(job.weights->rows);
            const size_t units = (rows + part->unit_rows - 1) / part->unit_rows;
            const size_t first = std::max(begin, part->first_unit),
                         last = std::min(end, part->first_unit + units);
            const std::byte* tokens = activations + part->activation_offset;
            if (part->strip != nullptr) {
                multiply_strips(*part, first - part->first_unit, last - part->first_unit, tokens);
                continue;
            }
            for (size_t unit = first; unit < last; ++unit) {
                const size_t r = (unit - part->first_unit) * part->unit_rows;
                const size_t unit_rows = std::min(part->unit_rows, rows - r);
                const std::byte* unit_data = job.weights->rows_at(
                    static_cast<int64_t>(r), static_cast<int64_t>(unit_rows), unpacked);
                multiply_rows(*part, unit_data, unit_rows, tokens, job.out + r);
            }
        }
    });
}

// Strips [first, last) of a part's matrix against its tokens. A prefill chunk's tokens go in
// blocks, each against every strip of the range: a strip is a few kilobytes and a block of
// activations a hundred or two, so both stay in cache, where all of a chunk's activations against
// each strip in turn would stream the whole chunk once per strip.
void CpuMatmul::multiply_strips(const DotPart& part, size_t first, size_t last,
                                const std::byte* tokens) {
    constexpr size_t kTokenBlock = 64;
    const WeightMatrix& w = *part.job.weights;
    const size_t rows = static_cast<size_t>(w.rows), columns = static_cast<size_t>(w.columns);
    const size_t count = static_cast<size_t>(part.job.count);
    for (size_t block = 0; block < count; block += kTokenBlock) {
        const size_t block_tokens = std::min(kTokenBlock, count - block);
        for (size_t strip = first; strip < last; ++strip) {
            const size_t r = strip * kernels::kStripRows;
            part.strip(w.row(static_cast<int64_t>(r)), std::min(kernels::kStripRows, rows - r),
                       tokens + block * part.stride, part.stride, block_tokens,
                       part.job.out + block * rows + r, rows, columns);
        }
    }
}

// Rows [r, r + count) of a part's matrix, at `data` in the file's layout, against its tokens into
// `out` (its row r's column).
void CpuMatmul::multiply_rows(const DotPart& part, const std::byte* data, size_t count,
                              const std::byte* tokens, float* out) {
    const WeightMatrix& w = *part.job.weights;
    const size_t rows = static_cast<size_t>(w.rows), columns = static_cast<size_t>(w.columns);
    const size_t token_count = static_cast<size_t>(part.job.count);
    if (part.dot_rows != nullptr) {
        // Each block of the rows is unpacked once for every token, and each (row, token) still
        // gets its single dot's numbers bit for bit.
        for (size_t done = 0; done < count; done += kernels::kDotRows) {
            part.dot_rows(data + done * w.row_bytes, w.row_bytes,
                          std::min(kernels::kDotRows, count - done), tokens, part.stride,
                          token_count, out + done, rows, columns);
        }
        return;
    }
    for (size_t i = 0; i < count; ++i) {
        const std::byte* row = data + i * w.row_bytes;
        if (token_count == 1) {
            out[i] = part.dot(row, tokens, columns);
        } else {
            // Unpacks the row once per group of tokens; each token's result is still bit for
            // bit its single dot's, so a batch's rows never change each other.
            part.dot_many(row, tokens, part.stride, token_count, out + i, rows, columns);
        }
    }
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
