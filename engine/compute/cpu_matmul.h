// Products of a model's weight matrices with a step's activations on the CPU, on the path the
// step's size calls for: integer dot products per token with activations quantised on the fly
// (by rows, or by the sixteen-row strips a model loaded in kernels/strips.h's layout holds),
// panel kernels that multiply all tokens at once, or weight tiles dequantised for OpenBLAS sgemm.
// The CPU backend's layers and its expert FFN share one, with its scratch.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <vector>

#include "engine/compute/thread_pool.h"
#include "engine/model/model.h"
#include "kernels/dot.h"
#include "kernels/gemm.h"
#include "kernels/strips.h"

namespace hearth {

// From how many tokens in one product on each path takes over.
struct MatmulThresholds {
    int panel = 16;  // formats with panel kernels (kernels/gemm.h), where the CPU has them
    int blas = 128;  // the other formats: dequantised tiles through sgemm
};

class CpuMatmul {
public:
    // The strip kernel of each type at one instruction-set level (null where it has none; strips
    // are then unpacked into rows).
    struct StripKernels {
        explicit StripKernels(kernels::Isa isa);
        // The kernel for `w`: null unless `w` is in strips.
        kernels::StripRowsFunction operator()(const WeightMatrix& w) const {
            return w.strips ? of[static_cast<uint32_t>(w.type)] : nullptr;
        }
        kernels::StripRowsFunction of[kernels::DotTable::kTypes] = {};
    };

    // One product of a group: its weights and where its rows go.
    struct Product {
        const WeightMatrix* weights;
        float* out;
    };
    // A product of a matrix with input rows of its own (one expert and the rows that chose it).
    struct Job {
        const WeightMatrix* weights;
        const float* in;
        int count;
        float* out;
    };

    CpuMatmul(ThreadPool& pool, kernels::Isa isa, MatmulThresholds thresholds);

    // out[t * w.rows + r] = W[r] . in[t * w.columns ...] for t < count, on the path
    // `path_tokens` tokens take.
    void run(const WeightMatrix& w, const float* in, int count, int path_tokens, float* out);
    // Several products of the same input (q/k/v, gate/up) as one pass over their rows: one
    // dispatch to the pool and one quantisation of the input per activation format.
    void run_group(std::initializer_list<Product> products, const float* in, int count,
                   int path_tokens);

    // Whether `path_tokens` tokens multiply `w` by integer dots (not panels or sgemm tiles).
    bool takes_dots(const WeightMatrix& w, int path_tokens) const;
    // Products that all take the integer dots, each with its own input rows, as one dispatch to
    // the pool: a decode step's chosen experts together instead of a pass per expert. Jobs that
    // share an input (and its activation format) quantise it once.
    void run_jobs(std::span<const Job> jobs);

    // Adds `bias` to each of `count` rows of its length (a biased product's rows, after it).
    static void add_bias(float* rows, std::span<const float> bias, int count);

    const kernels::GemmTable* gemm() const { return m_gemm; }
    // The scratch it holds now.
    size_t allocated_bytes() const;

    // The scratch the products of a model need at most, counted group by group as run_group
    // would run them: after add() for every group and step size, total() is what a CpuMatmul
    // allocates once every path has run.
    class Scratch {
    public:
        Scratch(kernels::Isa isa, MatmulThresholds thresholds);
        void add(std::initializer_list<const WeightMatrix*> group, int count) {
            add(group, count, count);
        }
        // `count` rows on the path `path_tokens` tokens take (a slice of a larger product).
        void add(std::initializer_list<const WeightMatrix*> group, int count, int path_tokens);
        // A run_jobs pass over `rows` input rows in all, each multiplied by the group's
        // matrices.
        void add_jobs(std::initializer_list<const WeightMatrix*> group, int rows);
        bool takes_dots(const WeightMatrix& w, int path_tokens) const;
        size_t total() const { return m_activations + m_panel + m_tile; }

    private:
        const kernels::DotTable& m_dots;
        const kernels::GemmTable* m_gemm;
        StripKernels m_strip_kernels;
        MatmulThresholds m_thresholds;
        size_t m_activations = 0, m_panel = 0, m_tile = 0;
    };

private:
    // One job's rows as the pool hands them out, and an input quantised for the dots.
    struct DotPart {
        Job job;
        kernels::DotFunction dot;
        kernels::DotManyFunction dot_many;
        kernels::DotRowsFunction dot_rows;
        kernels::StripRowsFunction strip;  // for a matrix in strips, where the CPU has one
        size_t activation_offset, stride, first_unit, unit_rows;
    };
    struct PreparedInput {
        const float* in;
        int count;
        size_t columns;
        kernels::ActivationFormat format;
        size_t offset;
    };

    void run_dots(std::span<const Product> products, const float* in, int count);
    static void multiply_strips(const DotPart& part, size_t first, size_t last,
                                const std::byte* tokens);
    static void multiply_rows(const DotPart& part, const std::byte* data, size_t count,
                              const std::byte* tokens, float* out);
    void run_panel(std::span<const Product> products, const float* in, int count);
    void run_blas(const WeightMatrix& w, const float* in, int count, float* out);

    ThreadPool& m_pool;
    const kernels::DotTable& m_dots;
    const kernels::GemmTable* m_gemm;  // null where the CPU (or the chosen ISA) has none
    StripKernels m_strip_kernels;
    MatmulThresholds m_thresholds;
    std::vector<std::byte> m_activations;
    std::vector<kernels::PanelBlock> m_panel;
    std::vector<float> m_weight_tile;
    // run_jobs' bookkeeping, kept so a step allocates nothing once they have grown.
    std::vector<DotPart> m_parts;
    std::vector<PreparedInput> m_prepared;
    std::vector<Job> m_jobs;
};

}  // namespace hearth
