#include "engine/model/model_reader.h"

#include <cmath>

#include "engine/model/strip_layout.h"

namespace hearth {

std::string shape_text(const std::vector<uint64_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

void ModelReader::fail(const std::string& message) const {
    throw LoadError(m_file.path().string() + ": " + message);
}

int ModelReader::required_int(const std::string& key, int minimum, int maximum) const {
    const auto value = m_file.get_integer(key);
    if (!value) fail("metadata key '" + key + "' is missing");
    return checked_int(key, *value, minimum, maximum);
}

int ModelReader::optional_int(const std::string& key, int fallback, int minimum,
                              int maximum) const {
    const auto value = m_file.get_integer(key);
    return value ? checked_int(key, *value, minimum, maximum) : fallback;
}

double ModelReader::optional_number(const std::string& key, double fallback) const {
    return m_file.get_number(key).value_or(fallback);
}

double ModelReader::optional_positive(const std::string& key, double fallback) const {
    const double value = optional_number(key, fallback);
    if (!(value > 0.0) || !std::isfinite(value)) {
        fail("metadata key '" + key + "' is " + std::to_string(value) + ", expected > 0");
    }
    return value;
}

const GgufTensor& ModelReader::tensor(const std::string& name) const {
    const auto* found = m_file.find_tensor(name);
    if (found == nullptr) fail("the model has no tensor '" + name + "'");
    return *found;
}

bool ModelReader::has_tensor(const std::string& name) const {
    return m_file.find_tensor(name) != nullptr;
}

WeightMatrix ModelReader::matrix(const std::string& name, int64_t rows, int64_t columns) const {
    return matrix_of(tensor(name), rows, columns);
}

WeightMatrix ModelReader::matrix_of(const GgufTensor& found, int64_t rows, int64_t columns) const {
    if (found.shape.size() != 2 || found.shape[0] != static_cast<uint64_t>(columns) ||
        found.shape[1] != static_cast<uint64_t>(rows)) {
        fail("tensor '" + found.name + "' has shape " + shape_text(found.shape) + ", expected [" +
             std::to_string(columns) + ", " + std::to_string(rows) + "]");
    }
    return {found.type,
            found.data,
            rows,
            columns,
            tensor_bytes(found.type, columns),
            loaded_in_strips(found)};
}

WeightMatrix ModelReader::stacked_matrices(const std::string& name, int64_t count, int64_t rows,
                                           int64_t columns) const {
    const GgufTensor& found = tensor(name);
    const std::vector<uint64_t> expected{static_cast<uint64_t>(columns),
                                         static_cast<uint64_t>(rows), static_cast<uint64_t>(count)};
    if (found.shape != expected) {
        fail("tensor '" + name + "' has shape " + shape_text(found.shape) + ", expected " +
             shape_text(expected));
    }
    return {found.type, found.data, count * rows, columns, tensor_bytes(found.type, columns)};
}

std::vector<float> ModelReader::vector(const std::string& name, int64_t length) const {
    return vector_of(tensor(name), length);
}

std::vector<float> ModelReader::stacked_vectors(const std::string& name, int64_t count,
                                                int64_t length) const {
    const GgufTensor& found = tensor(name);
    const std::vector<uint64_t> expected{static_cast<uint64_t>(length),
                                         static_cast<uint64_t>(count)};
    if (found.shape != expected) {
        fail("tensor '" + name + "' has shape " + shape_text(found.shape) + ", expected " +
             shape_text(expected));
    }
    return values_of(found);
}

std::vector<float> ModelReader::optional_vector(const std::string& name, int64_t length) const {
    const auto* found = m_file.find_tensor(name);
    return found ? vector_of(*found, length) : std::vector<float>{};
}

int ModelReader::checked_int(const std::string& key, int64_t value, int minimum,
                             int maximum) const {
    if (value < minimum || value > maximum) {
        fail("metadata key '" + key + "' is " + std::to_string(value) + ", outside " +
             std::to_string(minimum) + ".." + std::to_string(maximum));
    }
    return static_cast<int>(value);
}

std::vector<float> ModelReader::vector_of(const GgufTensor& found, int64_t length) const {
    if (found.shape.size() != 1 || found.elements != static_cast<uint64_t>(length)) {
        fail("tensor '" + found.name + "' has shape " + shape_text(found.shape) + ", expected [" +
             std::to_string(length) + "]");
    }
    return values_of(found);
}

std::vector<float> ModelReader::values_of(const GgufTensor& found) const {
    std::vector<float> values(static_cast<size_t>(found.elements));
    // A file parsed from its header alone has shapes but no values: the vector has its size
    // (what memory estimates count) and zeros.
    if (found.data != nullptr) dequantize(found.type, found.data, values.data(), values.size());
    return values;
}

}  // namespace hearth
