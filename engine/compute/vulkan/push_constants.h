// The push constants of one dispatch, taken from a typed block (the struct or array the shader
// declares word for word) so that its size travels with it and the pipeline can refuse a block
// of the wrong size: a raw pointer cannot say how many bytes it points at.
#pragma once

#include <cstddef>
#include <type_traits>

namespace hearth::vulkan {

class PushConstants final {
public:
    template <typename Block>
    requires(std::is_trivially_copyable_v<Block> && !std::is_pointer_v<Block>)
        PushConstants(const Block& block)  // NOLINT(google-explicit-constructor): a view of `block`
        : m_data(&block), m_bytes(sizeof(Block)) {}

    const void* data() const { return m_data; }
    size_t bytes() const { return m_bytes; }

private:
    const void* m_data;
    size_t m_bytes;
};

}  // namespace hearth::vulkan
