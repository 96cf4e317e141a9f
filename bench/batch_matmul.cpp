// hearth-batch-matmul: one matrix product of the size batched decode runs (TinyLlama's FFN,
// 5632 x 2048, by default) for 1 to 32 tokens, split over the thread pool as the CPU backend's
// matmul_dots splits it: the single-token dot once per token and row (the path before batched
// kernels) against the many-token dot once per row, and where the format has a row kernel, that
// kernel over groups of eight rows (Q4_0's single dot is then the row kernel on one row, eight
// times the work: compare its rows with an older build's). Activations are prepared outside the
// timing (both paths prepare them alike). For Q4_0 and IQ4_XS a second table runs the same
// product on the weights repacked into strips (strips.h).
//   hearth-batch-matmul [-t THREADS] [-r REPETITIONS] [--rows N] [--columns N]
//                       [--types q3_k,iq4_xs,q4_0,q4_k,q5_k,q6_k,q8_0,q5_0,f16]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/huge_pages.h"
#include "bench/normal_random.h"
#include "bench/statistics.h"
#include "engine/compute/thread_pool.h"
#include "engine/format/tensor_types.h"
#include "kernels/dot.h"
#include "kernels/quantize.h"
#include "kernels/strips.h"

namespace {

using hearth::TensorType;
namespace kernels = hearth::kernels;

struct Options {
    int threads = 2;
    int repetitions = 30;
    size_t rows = 5632;
    size_t columns = 2048;
    std::vector<std::string> types{"q4_0", "q4_k"};
};

struct Format {
    TensorType type;
    void (*quantize)(const float*, void*, size_t);
};

// Q3_K and IQ4_XS have no quantiser in kernels/: their blocks are random bytes from the row's
// values, with each super-block's f16 scale set to 1/128 (a finite, ordinary value). The kernels'
// speed does not depend on the values.
template <size_t BlockBytes, size_t ScaleOffset>
void random_blocks(const float* x, void* out, size_t count) {
    auto* bytes = static_cast<uint8_t*>(out);
    const size_t blocks = count / 256;
    for (size_t i = 0; i < blocks * BlockBytes; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &x[i % count], sizeof bits);
        bytes[i] = static_cast<uint8_t>(bits ^ (bits >> 13) ^ i);
    }
    const uint16_t scale = 0x2000;  // f16 2^-7
    for (size_t b = 0; b < blocks; ++b)
        std::memcpy(bytes + b * BlockBytes + ScaleOffset, &scale, sizeof scale);
}

const std::map<std::string, Format> kFormats{
    {"q3_k", {TensorType::Q3_K, random_blocks<110, 108>}},
    {"iq4_xs", {TensorType::IQ4_XS, random_blocks<136, 0>}},
    {"q4_0", {TensorType::Q4_0, kernels::quantize_q4_0}},
    {"q4_k", {TensorType::Q4_K, kernels::quantize_q4_k}},
    {"q5_k", {TensorType::Q5_K, random_blocks<176, 0>}},
    {"q6_k", {TensorType::Q6_K, kernels::quantize_q6_k}},
    {"q8_0", {TensorType::Q8_0, kernels::quantize_q8_0}},
    {"q5_0", {TensorType::Q5_0, kernels::quantize_q5_0}},
    {"f16", {TensorType::F16, kernels::quantize_f16}},
};

Options parse_options(int argc, char** argv) {
    Options options;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i], value = argv[i + 1];
        if (flag == "-t") {
            options.threads = std::stoi(value);
        } else if (flag == "-r") {
            options.repetitions = std::stoi(value);
        } else if (flag == "--rows") {
            options.rows = std::stoul(value);
        } else if (flag == "--columns") {
            options.columns = std::stoul(value);
        } else if (flag == "--types") {
            options.types.clear();
            std::stringstream list(value);
            for (std::string item; std::getline(list, item, ',');) options.types.push_back(item);
        } else {
            throw std::invalid_argument("unknown option " + flag);
        }
    }
    for (const auto& name : options.types) {
        if (!kFormats.contains(name)) throw std::invalid_argument("unknown type " + name);
    }
    return options;
}

// Median seconds of `repetitions` runs of `step`, after one to warm the caches.
double median_seconds(int repetitions, const std::function<void()>& step) {
    step();
    std::vector<double> seconds;
    for (int r = 0; r < repetitions; ++r) {
        const auto start = std::chrono::steady_clock::now();
        step();
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return hearth::bench::summarise(seconds).median;
}

void run_type(const Options& options, const Format& format, hearth::ThreadPool& pool) {
    const auto id = static_cast<uint32_t>(format.type);
    const auto& table = kernels::dot_table();
    const size_t rows = options.rows, columns = options.columns;
    const size_t row_bytes = hearth::tensor_bytes(format.type, columns);
    hearth::bench::NormalRandom random(id);
    std::vector<float> values(rows * columns);
    for (auto& value : values) value = random.next(0.02f);
    // On huge pages, as a model's weights are.
    auto weights = hearth::bench::huge_page_vector<std::byte>(rows * row_bytes);
    for (size_t r = 0; r < rows; ++r) {
        format.quantize(&values[r * columns], &weights[r * row_bytes], columns);
    }
    constexpr int kMostTokens = 32;
    const size_t stride = kernels::activation_row_bytes(table.format[id], columns);
    std::vector<std::byte> activations(stride * kMostTokens);
    for (int t = 0; t < kMostTokens; ++t) {
        kernels::prepare_activations(table.format[id], &values[t * columns],
                                     &activations[t * stride], columns);
    }
    std::vector<float> out(rows * kMostTokens);
    fmt::print("\n{} {} x {}, {} threads ({}):\n", hearth::tensor_type_name(id), rows, columns,
               pool.size(), kernels::isa_name(kernels::best_isa()));
    // The row kernels, where the format has them, take the rows eight at a time.
    const auto dot_rows = table.dot_rows[id];
    fmt::print(
        "| tokens | per token µs/step | µs/token | dot_many µs/step | µs/token | speed-up |{}\n",
        dot_rows != nullptr ? " dot_rows µs/step | µs/token | speed-up |" : "");
    fmt::print(
        "|-------:|------------------:|---------:|-----------------:|---------:|---------:|{}\n",
        dot_rows != nullptr ? "-----------------:|---------:|---------:|" : "");
    enum class Path { PerToken, Many, Rows };
    for (const int tokens : {1, 2, 4, 8, 16, 32}) {
        const auto product = [&](Path path) {
            if (path == Path::Rows) {
                const size_t groups = (rows + kernels::kDotRows - 1) / kernels::kDotRows;
                pool.parallel_for(groups, 2, [&](size_t begin, size_t end) {
                    for (size_t g = begin; g < end; ++g) {
                        const size_t r = g * kernels::kDotRows;
                        dot_rows(&weights[r * row_bytes], row_bytes,
                                 std::min(kernels::kDotRows, rows - r), activations.data(), stride,
                                 tokens, &out[r], rows, columns);
                    }
                });
                return;
            }
            pool.parallel_for(rows, 16, [&](size_t begin, size_t end) {
                for (size_t r = begin; r < end; ++r) {
                    const std::byte* row = &weights[r * row_bytes];
                    if (path == Path::Many) {
                        table.dot_many[id](row, activations.data(), stride, tokens, &out[r], rows,
                                           columns);
                        continue;
                    }
                    for (int t = 0; t < tokens; ++t) {
                        out[t * rows + r] = table.dot[id](row, &activations[t * stride], columns);
                    }
                }
            });
        };
        const double single =
            median_seconds(options.repetitions, [&] { product(Path::PerToken); }) * 1e6;
        const double many = median_seconds(options.repetitions, [&] { product(Path::Many); }) * 1e6;
        fmt::print("| {:6} | {:17.0f} | {:8.1f} | {:16.0f} | {:8.1f} | {:7.2f}x |", tokens, single,
                   single / tokens, many, many / tokens, single / many);
        if (dot_rows != nullptr) {
            const double grouped =
                median_seconds(options.repetitions, [&] { product(Path::Rows); }) * 1e6;
            fmt::print(" {:16.0f} | {:8.1f} | {:7.2f}x |", grouped, grouped / tokens,
                       single / grouped);
        }
        fmt::print("\n");
    }
}

// A type repacked into strips (strips.h), as a model's weights would be at load: the best strip
// kernel (for Q4_0 AMX from ten tokens, where the CPU has it) and the VNNI one alone, over the
// same rows and activations as run_type's table of the type, so the two tables compare.
void run_strips(const Options& options, const Format& format_of, hearth::ThreadPool& pool) {
    const int type = static_cast<int>(format_of.type);
    const auto name = hearth::tensor_type_info(format_of.type).name;
    const auto best = kernels::strip_rows(type, kernels::best_isa());
    const auto vnni = kernels::strip_rows_vnni(type);
    if (best == nullptr) {
        fmt::print("\n{} strips: no strip kernel on this CPU ({})\n", name,
                   kernels::isa_name(kernels::best_isa()));
        return;
    }
    const size_t rows = options.rows, columns = options.columns;
    const size_t row_bytes = hearth::tensor_bytes(format_of.type, columns);
    hearth::bench::NormalRandom random(static_cast<uint32_t>(format_of.type));
    std::vector<float> values(rows * columns);
    for (auto& value : values) value = random.next(0.02f);
    std::vector<std::byte> weights(rows * row_bytes);
    for (size_t r = 0; r < rows; ++r)
        format_of.quantize(&values[r * columns], &weights[r * row_bytes], columns);
    const size_t strips = kernels::strip_count(rows);
    const size_t strip_bytes = kernels::kStripRows * row_bytes;
    auto packed = hearth::bench::huge_page_vector<std::byte>(strips * strip_bytes);
    kernels::repack_strips(type, weights.data(), row_bytes, rows, columns, packed.data());
    constexpr int kMostTokens = 32;
    const auto format = kernels::strip_activation_format(type);
    const size_t stride = kernels::activation_row_bytes(format, columns);
    std::vector<std::byte> activations(stride * kMostTokens);
    for (int t = 0; t < kMostTokens; ++t) {
        kernels::prepare_activations(format, &values[t * columns], &activations[t * stride],
                                     columns);
    }
    std::vector<float> out(rows * kMostTokens);
    const bool amx = best != vnni;
    fmt::print("\n{} strips {} x {}, {} threads ({}):\n", name, rows, columns, pool.size(),
               amx ? "AMX from 10 tokens, VNNI below" : "VNNI");
    fmt::print("| tokens | strips µs/step | µs/token |{}\n", amx ? " VNNI only µs/token |" : "");
    fmt::print("|-------:|---------------:|---------:|{}\n", amx ? "-------------------:|" : "");
    for (const int tokens : {1, 2, 4, 5, 8, 10, 16, 32}) {
        const auto product = [&](kernels::StripRowsFunction kernel) {
            pool.parallel_for(strips, 1, [&](size_t begin, size_t end) {
                for (size_t s = begin; s < end; ++s) {
                    const size_t first = s * kernels::kStripRows;
                    kernel(&packed[s * strip_bytes], std::min(kernels::kStripRows, rows - first),
                           activations.data(), stride, tokens, &out[first], rows, columns);
                }
            });
        };
        const double step = median_seconds(options.repetitions, [&] { product(best); }) * 1e6;
        fmt::print("| {:6} | {:14.0f} | {:8.1f} |", tokens, step, step / tokens);
        if (amx) {
            const double alone = median_seconds(options.repetitions, [&] { product(vnni); }) * 1e6;
            fmt::print(" {:18.1f} |", alone / tokens);
        }
        fmt::print("\n");
    }
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options options = parse_options(argc, argv);
        hearth::ThreadPool pool(options.threads);
        for (const auto& name : options.types) {
            run_type(options, kFormats.at(name), pool);
            const auto& format = kFormats.at(name);
            if (kernels::has_strip_layout(static_cast<int>(format.type)))
                run_strips(options, format, pool);
        }
    } catch (const std::exception& error) {
        fmt::print(stderr, "hearth-batch-matmul: {}\n", error.what());
        return 1;
    }
    return 0;
}
