// Dequantisation of one 32-element group of a weight row, for the type named by the TYPE_*
// define the shader is compiled with (one SPIR-V variant per weight type). Blocks (18, 34, 210
// bytes…) do not align to words, so quants are read four bytes at a time from wherever they
// start (one or two word loads), and unpacked from registers.
// Block layouts are ggml's; the CPU twin is hearth::dequantize in engine/tensor_types.cpp.
//
// The including shader declares `uint words[]` (the weights) before including this file.

uint byte_at(uint offset) {
    return (words[offset >> 2] >> ((offset & 3u) * 8u)) & 0xffu;
}

int int8_at(uint offset) {
    return int(byte_at(offset) << 24) >> 24;
}

// The four bytes at `offset`, little-endian. A buffer is padded to whole words, so the second
// load of an unaligned read stays inside it.
uint word_at(uint offset) {
    const uint index = offset >> 2, shift = (offset & 3u) * 8u;
    if (shift == 0) return words[index];
    return (words[index] >> shift) | (words[index + 1] << (32u - shift));
}

float half_at(uint offset) {
    return unpackHalf2x16(byte_at(offset) | (byte_at(offset + 1) << 8)).x;
}

#if defined(TYPE_F32)
const uint ROW_BYTES_PER_ELEMENT = 4;
#elif defined(TYPE_F16) || defined(TYPE_BF16)
const uint ROW_BYTES_PER_ELEMENT = 2;
#endif

// Bytes of a row of `columns` elements.
uint row_bytes(uint columns) {
#if defined(TYPE_F32) || defined(TYPE_F16) || defined(TYPE_BF16)
    return columns * ROW_BYTES_PER_ELEMENT;
#elif defined(TYPE_Q4_0)
    return columns / 32 * 18;
#elif defined(TYPE_Q4_1)
    return columns / 32 * 20;
#elif defined(TYPE_Q5_0)
    return columns / 32 * 22;
#elif defined(TYPE_Q5_1)
    return columns / 32 * 24;
#elif defined(TYPE_Q8_0)
    return columns / 32 * 34;
#elif defined(TYPE_Q4_K)
    return columns / 256 * 144;
#elif defined(TYPE_Q5_K)
    return columns / 256 * 176;
#elif defined(TYPE_Q6_K)
    return columns / 256 * 210;
#elif defined(TYPE_Q2_K)
    return columns / 256 * 84;
#elif defined(TYPE_Q3_K)
    return columns / 256 * 110;
#elif defined(TYPE_IQ4_NL)
    return columns / 32 * 18;
#elif defined(TYPE_IQ4_XS)
    return columns / 256 * 136;
#elif defined(TYPE_MXFP4)
    return columns / 32 * 17;
#else
#error "compile with one TYPE_* define"
#endif
}

// K-quants: the 6-bit scale and minimum of sub-block j (0-7) of a 12-byte scales field.
void scale_min_k4(uint scales, uint j, out float scale, out float minimum) {
    if (j < 4) {
        scale = float(byte_at(scales + j) & 63u);
        minimum = float(byte_at(scales + j + 4) & 63u);
    } else {
        scale = float((byte_at(scales + j + 4) & 15u) | ((byte_at(scales + j - 4) >> 6) << 4));
        minimum = float((byte_at(scales + j + 4) >> 4) | ((byte_at(scales + j) >> 6) << 4));
    }
}

#if defined(TYPE_IQ4_NL) || defined(TYPE_IQ4_XS)
// The non-uniform grid IQ4 indices stand for (ggml's kvalues_iq4nl).
const float IQ4_VALUES[16] = float[16](-127.0, -104.0, -83.0, -65.0, -49.0, -35.0, -22.0, -10.0,
                                       1.0, 13.0, 25.0, 38.0, 53.0, 69.0, 89.0, 113.0);
#endif

#if defined(TYPE_MXFP4)
// E2M1's values doubled (ggml's kvalues_mxfp4); the block's power of two is halved to match.
const float MXFP4_VALUES[16] = float[16](0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 0.0, -1.0, -2.0,
                                         -3.0, -4.0, -6.0, -8.0, -12.0);

// 2^(exponent - 128) from its bits, as the CPU's mxfp4_scale: 0 and 1 are the subnormals 2^-128
// and 2^-127 (a device that flushes subnormals reads them as 0), 255 is 2^127.
float mxfp4_scale(uint exponent) {
    return uintBitsToFloat(exponent < 2u ? 0x00200000u << exponent : (exponent - 1u) << 23);
}
#endif

// Values of elements [32 * group, 32 * group + 32) of the row starting at byte `row`; float
// types give 0 past `columns`, since their rows need not hold whole groups.
void dequantize_group(uint row, uint group, uint columns, out float v[32]) {
#if defined(TYPE_F32) || defined(TYPE_F16) || defined(TYPE_BF16)
    for (uint i = 0; i < 32; ++i) {
        const uint column = group * 32 + i;
        if (column >= columns) {
            v[i] = 0.0;
            continue;
        }
#if defined(TYPE_F32)
        v[i] = uintBitsToFloat(words[(row >> 2) + column]);
#elif defined(TYPE_F16)
        v[i] = half_at(row + column * 2);
#else
        v[i] = uintBitsToFloat((byte_at(row + column * 2) | (byte_at(row + column * 2 + 1) << 8))
                               << 16);
#endif
    }
#elif defined(TYPE_Q4_0) || defined(TYPE_Q4_1)
#if defined(TYPE_Q4_0)
    const uint block = row + group * 18;
    const float d = half_at(block), m = -8.0 * d;
    const uint quants = block + 2;
#else
    const uint block = row + group * 20;
    const float d = half_at(block), m = half_at(block + 2);
    const uint quants = block + 4;
#endif
    for (uint w = 0; w < 4; ++w) {
        const uint packed = word_at(quants + 4 * w);
        for (uint j = 0; j < 4; ++j) {
            const uint b = (packed >> (8 * j)) & 0xffu;
            v[4 * w + j] = float(b & 15u) * d + m;
            v[4 * w + j + 16] = float(b >> 4) * d + m;
        }
    }
#elif defined(TYPE_Q5_0) || defined(TYPE_Q5_1)
#if defined(TYPE_Q5_0)
    const uint block = row + group * 22;
    const float d = half_at(block), m = -16.0 * d;
    const uint high_bits = block + 2;
#else
    const uint block = row + group * 24;
    const float d = half_at(block), m = half_at(block + 2);
    const uint high_bits = block + 4;
#endif
    const uint high = word_at(high_bits);
    for (uint w = 0; w < 4; ++w) {
        const uint packed = word_at(high_bits + 4 + 4 * w);
        for (uint j = 0; j < 4; ++j) {
            const uint i = 4 * w + j, b = (packed >> (8 * j)) & 0xffu;
            v[i] = float((b & 15u) | (((high >> i) & 1u) << 4)) * d + m;
            v[i + 16] = float((b >> 4) | (((high >> (i + 16)) & 1u) << 4)) * d + m;
        }
    }
#elif defined(TYPE_Q8_0)
    const uint block = row + group * 34;
    const float d = half_at(block);
    for (uint w = 0; w < 8; ++w) {
        const uint packed = word_at(block + 2 + 4 * w);
        for (uint j = 0; j < 4; ++j) v[4 * w + j] = float(int(packed << (24 - 8 * j)) >> 24) * d;
    }
#elif defined(TYPE_Q4_K) || defined(TYPE_Q5_K)
    // 256 elements: d, dmin, 12 bytes of 6-bit scales and minimums, [32 bytes of fifth bits],
    // 128 bytes of nibbles; sub-block `sub` uses the low (even) or high (odd) nibbles of the
    // 32 bytes at 32 * (sub / 2).
#if defined(TYPE_Q4_K)
    const uint block = row + (group / 8) * 144;
    const uint quants = block + 16;
#else
    const uint block = row + (group / 8) * 176;
    const uint fifth_bits = block + 16;
    const uint quants = block + 48;
#endif
    const uint sub = group % 8;
    float scale, minimum;
    scale_min_k4(block + 4, sub, scale, minimum);
    const float d = half_at(block) * scale, m = half_at(block + 2) * minimum;
    const uint shift = (sub & 1u) * 4u;
    for (uint w = 0; w < 8; ++w) {
        const uint packed = word_at(quants + 32 * (sub / 2) + 4 * w);
#if defined(TYPE_Q5_K)
        const uint fifth = word_at(fifth_bits + 4 * w);
#endif
        for (uint j = 0; j < 4; ++j) {
            uint q = (packed >> (8 * j + shift)) & 15u;
#if defined(TYPE_Q5_K)
            q |= ((fifth >> (8 * j + sub)) & 1u) << 4;
#endif
            v[4 * w + j] = float(q) * d - m;
        }
    }
#elif defined(TYPE_Q6_K)
    // 256 elements: 128 bytes of low nibbles, 64 of high bit pairs, 16 int8 scales, d. Sub-block
    // `sub`: half h = sub / 4 of the block, quarter k = sub % 4 within it.
    const uint block = row + (group / 8) * 210;
    const uint sub = group % 8, h = sub / 4, k = sub % 4;
    const float d = half_at(block + 208);
    const uint low = block + 64 * h + (k & 1u) * 32;
    const uint high = block + 128 + 32 * h;
    const uint low_shift = (k / 2) * 4;
    for (uint i = 0; i < 32; ++i) {
        const uint q =
            ((byte_at(low + i) >> low_shift) & 15u) | (((byte_at(high + i) >> (2 * k)) & 3u) << 4);
        const float scale = float(int8_at(block + 192 + 8 * h + i / 16 + 2 * k));
        v[i] = d * scale * float(int(q) - 32);
    }
#elif defined(TYPE_Q2_K)
    // 256 elements: 16 bytes of 4-bit scales (low nibble) and minimums (high) per 16 elements,
    // 64 bytes of 2-bit quants, d, dmin. Group `sub` takes the bits at shift 2 * (sub % 4) of
    // the 32 quant bytes at 32 * (sub / 4); each half of it has its own scale byte.
    const uint block = row + (group / 8) * 84;
    const uint sub = group % 8;
    const float d = half_at(block + 80), dmin = half_at(block + 82);
    const uint quants = block + 16 + 32 * (sub / 4), shift = 2 * (sub % 4);
    for (uint part = 0; part < 2; ++part) {
        const uint packed_scale = byte_at(block + 2 * sub + part);
        const float scale = d * float(packed_scale & 15u);
        const float minimum = dmin * float(packed_scale >> 4);
        for (uint w = 0; w < 4; ++w) {
            const uint packed = word_at(quants + 16 * part + 4 * w);
            for (uint j = 0; j < 4; ++j) {
                v[16 * part + 4 * w + j] =
                    scale * float((packed >> (8 * j + shift)) & 3u) - minimum;
            }
        }
    }
#elif defined(TYPE_Q3_K)
    // 256 elements: 32 bytes of high bits, 64 of 2-bit quants (placed as Q2_K's), 12 of 6-bit
    // scales, d. Element i of group `sub` has its high bit at bit `sub` of high byte i; a clear
    // bit subtracts 4. Scale s (of 16) keeps its low four bits in nibble s / 8 of byte s % 8 and
    // its top two at bit 2 * (s / 4) of byte 8 + s % 4, 32 above its value.
    const uint block = row + (group / 8) * 110;
    const uint sub = group % 8;
    const float d = half_at(block + 108);
    const uint quants = block + 32 + 32 * (sub / 4), shift = 2 * (sub % 4);
    for (uint part = 0; part < 2; ++part) {
        const uint s = 2 * sub + part;
        const uint low = (byte_at(block + 96 + s % 8) >> (4 * (s / 8))) & 15u;
        const uint high = (byte_at(block + 104 + s % 4) >> (2 * (s / 4))) & 3u;
        const float scale = d * float(int(low | (high << 4)) - 32);
        for (uint w = 0; w < 4; ++w) {
            const uint packed = word_at(quants + 16 * part + 4 * w);
            const uint high_bits = word_at(block + 16 * part + 4 * w);
            for (uint j = 0; j < 4; ++j) {
                const int q = int((packed >> (8 * j + shift)) & 3u) -
                              (((high_bits >> (8 * j + sub)) & 1u) != 0u ? 0 : 4);
                v[16 * part + 4 * w + j] = scale * float(q);
            }
        }
    }
#elif defined(TYPE_IQ4_NL) || defined(TYPE_IQ4_XS)
    // 4-bit indices into IQ4_VALUES, laid out as Q4_0's nibbles. IQ4_NL: d and 16 bytes per 32.
    // IQ4_XS: 256 elements: d, 16 bits of the sub-blocks' top scale bits (two each), 4 bytes of
    // their low four bits (a nibble each), 128 bytes of indices; scales are 32 above their value.
#if defined(TYPE_IQ4_NL)
    const uint block = row + group * 18;
    const float d = half_at(block);
    const uint quants = block + 2;
#else
    const uint block = row + (group / 8) * 136;
    const uint sub = group % 8;
    const uint low = (byte_at(block + 4 + sub / 2) >> (4 * (sub % 2))) & 15u;
    const uint high = ((byte_at(block + 2) | (byte_at(block + 3) << 8)) >> (2 * sub)) & 3u;
    const float d = half_at(block) * float(int(low | (high << 4)) - 32);
    const uint quants = block + 8 + 16 * sub;
#endif
    for (uint w = 0; w < 4; ++w) {
        const uint packed = word_at(quants + 4 * w);
        for (uint j = 0; j < 4; ++j) {
            const uint b = (packed >> (8 * j)) & 0xffu;
            v[4 * w + j] = d * IQ4_VALUES[b & 15u];
            v[4 * w + j + 16] = d * IQ4_VALUES[b >> 4];
        }
    }
#elif defined(TYPE_MXFP4)
    // 17 bytes per 32: the exponent, then 4-bit codes laid out as Q4_0's nibbles. Each value is
    // a small integer times a power of two, so the product is exact and equals the CPU's.
    const uint block = row + group * 17;
    const float d = mxfp4_scale(byte_at(block));
    for (uint w = 0; w < 4; ++w) {
        const uint packed = word_at(block + 1 + 4 * w);
        for (uint j = 0; j < 4; ++j) {
            const uint b = (packed >> (8 * j)) & 0xffu;
            v[4 * w + j] = MXFP4_VALUES[b & 15u] * d;
            v[4 * w + j + 16] = MXFP4_VALUES[b >> 4] * d;
        }
    }
#endif
}
