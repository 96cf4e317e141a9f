#include "engine/model/model.h"

#include "engine/model/load_error.h"

#include <stdexcept>

namespace hearth {
namespace {

constexpr int kMaxDimension = 1 << 16;
constexpr int kMaxLayers = 1024;
constexpr int kMaxContext = 1 << 24;

std::string shape_text(const std::vector<uint64_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

// Reads hyper-parameters and tensors for one file, naming the file in every error.
class ModelReader {
public:
    explicit ModelReader(const GgufFile& file) : m_file(file) {}

    [[noreturn]] void fail(const std::string& message) const {
        throw LoadError(m_file.path().string() + ": " + message);
    }

    int required_int(const std::string& key, int minimum, int maximum) const {
        const auto value = m_file.get_integer(key);
        if (!value) fail("metadata key '" + key + "' is missing");
        return checked_int(key, *value, minimum, maximum);
    }

    int optional_int(const std::string& key, int fallback, int minimum, int maximum) const {
        const auto value = m_file.get_integer(key);
        return value ? checked_int(key, *value, minimum, maximum) : fallback;
    }

    double optional_number(const std::string& key, double fallback) const {
        return m_file.get_number(key).value_or(fallback);
    }

    const GgufTensor& tensor(const std::string& name) const {
        const auto* found = m_file.find_tensor(name);
        if (found == nullptr) fail("the model has no tensor '" + name + "'");
        return *found;
    }

    WeightMatrix matrix(const std::string& name, int64_t rows, int64_t columns) const {
        return matrix_of(tensor(name), rows, columns);
    }

    WeightMatrix matrix_of(const GgufTensor& found, int64_t rows, int64_t columns) const {
        if (found.shape.size() != 2 || found.shape[0] != static_cast<uint64_t>(columns) ||
            found.shape[1] != static_cast<uint64_t>(rows)) {
            fail("tensor '" + found.name + "' has shape " + shape_text(found.shape) +
                 ", expected [" + std::to_string(columns) + ", " + std::to_string(rows) + "]");
        }
        return {found.type, found.data, rows, columns, tensor_bytes(found.type, columns)};
    }

    std::vector<float> vector(const std::string& name, int64_t length) const {
        return vector_of(tensor(name), length);
    }

    std::vector<float> optional_vector(const std::string& name, int64_t length) const {
        const auto* found = m_file.find_tensor(name);
        return found ? vector_of(*found, length) : std::vector<float>{};
    }

private:
    int checked_int(const std::string& key, int64_t value, int minimum, int maximum) const {
        if (value < minimum || value > maximum) {
            fail("metadata key '" + key + "' is " + std::to_string(value) + ", outside " +
                 std::to_string(minimum) + ".." + std::to_string(maximum));
        }
        return static_cast<int>(value);
    }

    std::vector<float> vector_of(const GgufTensor& found, int64_t length) const {
        if (found.elements != static_cast<uint64_t>(length)) {
            fail("tensor '" + found.name + "' has shape " + shape_text(found.shape) +
                 ", expected [" + std::to_string(length) + "]");
        }
        std::vector<float> values(static_cast<size_t>(length));
        dequantize(found.type, found.data, values.data(), values.size());
        return values;
    }

    const GgufFile& m_file;
};

ModelConfig read_config(const ModelReader& reader, const GgufFile& file) {
    ModelConfig config;
    const auto architecture = file.get_string("general.architecture");
    if (!architecture) reader.fail("metadata key 'general.architecture' is missing");
    config.architecture_name = *architecture;
    if (*architecture == "llama") {
        config.architecture = Architecture::Llama;
        config.rope_style = RopeStyle::AdjacentPairs;
    } else if (*architecture == "qwen2") {
        config.architecture = Architecture::Qwen2;
        config.rope_style = RopeStyle::Neox;
    } else {
        reader.fail("architecture '" + *architecture +
                    "' is not supported (Hearth runs 'llama' and 'qwen2' models)");
    }
    config.name = file.get_string("general.name").value_or(file.path().stem().string());
    const std::string& prefix = *architecture + ".";
    config.embedding_length = reader.required_int(prefix + "embedding_length", 1, kMaxDimension);
    config.layer_count = reader.required_int(prefix + "block_count", 1, kMaxLayers);
    config.head_count = reader.required_int(prefix + "attention.head_count", 1, kMaxDimension);
    config.kv_head_count = reader.optional_int(prefix + "attention.head_count_kv",
                                               config.head_count, 1, config.head_count);
    config.feed_forward_length =
        reader.required_int(prefix + "feed_forward_length", 1, 16 * kMaxDimension);
    config.context_length = reader.required_int(prefix + "context_length", 1, kMaxContext);
    if (config.embedding_length % config.head_count != 0 ||
        config.head_count % config.kv_head_count != 0) {
        reader.fail("inconsistent attention shape: " + std::to_string(config.embedding_length) +
                    " embedding, " + std::to_string(config.head_count) + " heads, " +
                    std::to_string(config.kv_head_count) + " KV heads");
    }
    config.head_dim = config.embedding_length / config.head_count;
    reader.optional_int(prefix + "attention.key_length", config.head_dim, config.head_dim,
                        config.head_dim);
    config.rope_dimensions =
        reader.optional_int(prefix + "rope.dimension_count", config.head_dim, 2, config.head_dim);
    if (config.rope_dimensions % 2 != 0) reader.fail("rope.dimension_count must be even");
    config.rope_base = reader.optional_number(prefix + "rope.freq_base", 10000.0);
    if (!(config.rope_base > 1.0)) reader.fail("rope.freq_base must be greater than 1");
    const auto scaling = file.get_string(prefix + "rope.scaling.type").value_or("none");
    if (scaling == "linear") {
        const double factor = reader.optional_number(prefix + "rope.scaling.factor", 1.0);
        if (!(factor > 0.0)) reader.fail("rope.scaling.factor must be positive");
        config.rope_scale = 1.0 / factor;
    } else if (scaling != "none") {
        reader.fail("RoPE scaling '" + scaling + "' is not supported (only linear)");
    }
    const double epsilon =
        reader.optional_number(prefix + "attention.layer_norm_rms_epsilon", 1e-5);
    if (!(epsilon > 0.0 && epsilon < 1.0)) reader.fail("layer_norm_rms_epsilon is out of range");
    config.rms_epsilon = static_cast<float>(epsilon);
    return config;
}

LayerWeights read_layer(const ModelReader& reader, const ModelConfig& config, int index) {
    const std::string prefix = "blk." + std::to_string(index) + ".";
    const int64_t dim = config.embedding_length;
    const int64_t ffn = config.feed_forward_length;
    LayerWeights layer;
    layer.attention_norm = reader.vector(prefix + "attn_norm.weight", dim);
    layer.query = reader.matrix(prefix + "attn_q.weight", config.query_dim(), dim);
    layer.key = reader.matrix(prefix + "attn_k.weight", config.kv_dim(), dim);
    layer.value = reader.matrix(prefix + "attn_v.weight", config.kv_dim(), dim);
    layer.query_bias = reader.optional_vector(prefix + "attn_q.bias", config.query_dim());
    layer.key_bias = reader.optional_vector(prefix + "attn_k.bias", config.kv_dim());
    layer.value_bias = reader.optional_vector(prefix + "attn_v.bias", config.kv_dim());
    if (config.architecture == Architecture::Qwen2 &&
        (layer.query_bias.empty() || layer.key_bias.empty() || layer.value_bias.empty())) {
        reader.fail("qwen2 layer " + std::to_string(index) + " lacks its q/k/v biases");
    }
    layer.attention_output = reader.matrix(prefix + "attn_output.weight", dim, config.query_dim());
    layer.ffn_norm = reader.vector(prefix + "ffn_norm.weight", dim);
    layer.gate = reader.matrix(prefix + "ffn_gate.weight", ffn, dim);
    layer.up = reader.matrix(prefix + "ffn_up.weight", ffn, dim);
    layer.down = reader.matrix(prefix + "ffn_down.weight", dim, ffn);
    return layer;
}

}  // namespace

void check_token_ids(const ModelConfig& config, std::span<const int32_t> tokens) {
    if (tokens.empty()) throw std::invalid_argument("forward pass over no tokens");
    for (const int32_t token : tokens) {
        if (token < 0 || token >= config.vocab_size) {
            throw std::out_of_range("token id " + std::to_string(token) +
                                    " is outside the vocabulary of " +
                                    std::to_string(config.vocab_size));
        }
    }
}

size_t ModelWeights::owned_bytes() const {
    size_t floats = output_norm.size() + rope_factors.size();
    for (const auto& layer : layers) {
        floats += layer.attention_norm.size() + layer.ffn_norm.size() + layer.query_bias.size() +
                  layer.key_bias.size() + layer.value_bias.size();
    }
    return floats * sizeof(float);
}

std::unique_ptr<Model> Model::load(const std::filesystem::path& path, const MapOptions& options) {
    return std::make_unique<Model>(GgufFile::open(path, options));
}

Model::Model(std::unique_ptr<GgufFile> file) : m_file(std::move(file)) {
    const ModelReader reader(*m_file);
    m_config = read_config(reader, *m_file);
    const int64_t dim = m_config.embedding_length;

    const auto& embedding = reader.tensor("token_embd.weight");
    if (embedding.shape.size() != 2 || embedding.shape[1] > static_cast<uint64_t>(1 << 22)) {
        reader.fail("tensor 'token_embd.weight' has shape " + shape_text(embedding.shape) +
                    ", expected [" + std::to_string(dim) + ", vocabulary size]");
    }
    m_config.vocab_size = static_cast<int>(embedding.shape[1]);
    m_weights.token_embedding = reader.matrix_of(embedding, m_config.vocab_size, dim);
    const int declared_vocab = reader.optional_int(m_config.architecture_name + ".vocab_size",
                                                   m_config.vocab_size, 1, 1 << 22);
    if (declared_vocab != m_config.vocab_size) {
        reader.fail("vocab_size says " + std::to_string(declared_vocab) +
                    " but token_embd.weight has " + std::to_string(m_config.vocab_size) + " rows");
    }

    for (int i = 0; i < m_config.layer_count; ++i) {
        m_weights.layers.push_back(read_layer(reader, m_config, i));
    }
    m_weights.output_norm = reader.vector("output_norm.weight", dim);
    if (m_file->find_tensor("output.weight") != nullptr) {
        m_weights.output = reader.matrix("output.weight", m_config.vocab_size, dim);
    } else {
        m_config.tied_embeddings = true;
        m_weights.output = m_weights.token_embedding;
    }
    m_weights.rope_factors =
        reader.optional_vector("rope_freqs.weight", m_config.rope_dimensions / 2);
    for (const float factor : m_weights.rope_factors) {
        if (!(factor > 0.0f)) reader.fail("tensor 'rope_freqs.weight' holds a non-positive factor");
    }
}

}  // namespace hearth
