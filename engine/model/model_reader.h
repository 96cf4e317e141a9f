// Reads a GGUF model's hyper-parameters and tensors, checking each against what the loader
// expects and naming the file and the part in every error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/format/gguf_file.h"
#include "engine/model/load_error.h"
#include "engine/model/model.h"

namespace hearth {

std::string shape_text(const std::vector<uint64_t>& shape);

class ModelReader {
public:
    explicit ModelReader(const GgufFile& file) : m_file(file) {}

    const GgufFile& file() const { return m_file; }
    [[noreturn]] void fail(const std::string& message) const;

    int required_int(const std::string& key, int minimum, int maximum) const;
    int optional_int(const std::string& key, int fallback, int minimum, int maximum) const;
    double optional_number(const std::string& key, double fallback) const;
    // A positive number, or `fallback` when the key is absent.
    double optional_positive(const std::string& key, double fallback) const;

    const GgufTensor& tensor(const std::string& name) const;
    bool has_tensor(const std::string& name) const;
    WeightMatrix matrix(const std::string& name, int64_t rows, int64_t columns) const;
    WeightMatrix matrix_of(const GgufTensor& found, int64_t rows, int64_t columns) const;
    // A 3-D tensor of `count` matrices of `rows` x `columns` (a layer's experts), as one matrix
    // of count * rows rows: GGUF stores the matrices one after another.
    WeightMatrix stacked_matrices(const std::string& name, int64_t count, int64_t rows,
                                  int64_t columns) const;
    std::vector<float> vector(const std::string& name, int64_t length) const;
    // A 2-D tensor of `count` vectors of `length` (a layer's expert biases), one after another.
    std::vector<float> stacked_vectors(const std::string& name, int64_t count,
                                       int64_t length) const;
    std::vector<float> optional_vector(const std::string& name, int64_t length) const;

private:
    int checked_int(const std::string& key, int64_t value, int minimum, int maximum) const;
    std::vector<float> vector_of(const GgufTensor& found, int64_t length) const;
    std::vector<float> values_of(const GgufTensor& found) const;

    const GgufFile& m_file;
};

}  // namespace hearth
