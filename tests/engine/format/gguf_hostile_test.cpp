// Hostile and broken GGUF files: each must give a LoadError that says what is wrong, never a
// crash, a hang or an unbounded allocation (CI also runs this under ASan and UBSan).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "engine/format/gguf_file.h"
#include "engine/format/gguf_writer.h"
#include "engine/model/load_error.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

// Writes GGUF bytes field by field, so tests can say exactly which field is broken.
class RawGguf {
public:
    RawGguf& u32(uint32_t value) { return put(&value, 4); }
    RawGguf& u64(uint64_t value) { return put(&value, 8); }
    RawGguf& u8(uint8_t value) { return put(&value, 1); }
    RawGguf& string(const std::string& text) {
        u64(text.size());
        return put(text.data(), text.size());
    }
    RawGguf& header(uint64_t tensors, uint64_t metadata, uint32_t version = 3) {
        return u32(0x46554747).u32(version).u64(tensors).u64(metadata);
    }
    // One tensor entry: name, dims, type, offset.
    RawGguf& tensor(const std::string& name, std::vector<uint64_t> shape, uint32_t type,
                    uint64_t offset) {
        string(name).u32(static_cast<uint32_t>(shape.size()));
        for (const auto extent : shape) u64(extent);
        return u32(type).u64(offset);
    }
    RawGguf& pad_to(size_t alignment) {
        bytes.resize((bytes.size() + alignment - 1) / alignment * alignment);
        return *this;
    }
    RawGguf& zeros(size_t count) {
        bytes.resize(bytes.size() + count);
        return *this;
    }
    std::vector<std::byte> bytes;

private:
    RawGguf& put(const void* data, size_t size) {
        const auto* begin = static_cast<const std::byte*>(data);
        bytes.insert(bytes.end(), begin, begin + size);
        return *this;
    }
};

class GgufHostileTest : public testing::Test {
protected:
    // Opens `bytes` as a file and returns the LoadError's message ("" if it loaded).
    std::string load_error(const std::vector<std::byte>& bytes) {
        const auto path = m_directory.write("case.gguf", bytes);
        try {
            GgufFile::open(path);
        } catch (const LoadError& error) {
            const std::string message = error.what();
            EXPECT_EQ(message.rfind(path.string(), 0), 0u)
                << "the message must name the file: " << message;
            return message;
        }
        return "";
    }

    void expect_error(const std::vector<std::byte>& bytes, const std::string& fragment) {
        const std::string message = load_error(bytes);
        EXPECT_NE(message.find(fragment), std::string::npos) << "got: '" << message << "'";
    }

    test::TempDirectory m_directory;
};

TEST_F(GgufHostileTest, EmptyAndForeignFiles) {
    expect_error({}, "the file is empty");
    expect_error(RawGguf().u32(0x464c457f).zeros(40).bytes, "not a GGUF file");
    expect_error(RawGguf().u32(0x46554747).bytes, "truncated or corrupt file");
}

TEST_F(GgufHostileTest, UnsupportedVersions) {
    expect_error(RawGguf().header(0, 0, 1).bytes, "GGUF version 1 is not supported");
    expect_error(RawGguf().header(0, 0, 4).bytes, "GGUF version 4 is not supported");
}

TEST_F(GgufHostileTest, AbsurdCountsAndLengthsAllocateNothing) {
    expect_error(RawGguf().header(uint64_t{1} << 60, 0).zeros(64).bytes,
                 "more than the file can hold");
    expect_error(RawGguf().header(0, ~uint64_t{0}).zeros(64).bytes, "more than the file can hold");
    expect_error(RawGguf().header(0, 1).u64(~uint64_t{0}).zeros(16).bytes,
                 "claims 18446744073709551615 bytes");
    expect_error(
        RawGguf().header(0, 1).string("k").u32(9).u32(4).u64(uint64_t{1} << 61).zeros(16).bytes,
        "claims 2305843009213693952 elements");
    expect_error(RawGguf().header(0, 1).string("k").u32(8).u64(uint64_t{1} << 62).bytes, "claims");
}

// An array the file really holds can still cost several times its bytes in memory: past
// kMaxArrayElements it is refused by the limit's name before anything is allocated.
TEST_F(GgufHostileTest, AnArrayPastTheElementLimitIsRefusedByName) {
    const uint64_t count = kMaxArrayElements + 1;
    const auto bytes =
        RawGguf().header(0, 1).string("k").u32(9).u32(0).u64(count).zeros(count).bytes;
    expect_error(bytes,
                 "metadata key 'k' has 16777217 elements, more than Hearth reads in one "
                 "array (kMaxArrayElements, 16777216)");
}

TEST_F(GgufHostileTest, BadValues) {
    expect_error(RawGguf().header(0, 1).string("k").u32(99).zeros(8).bytes,
                 "unknown value type 99");
    expect_error(RawGguf().header(0, 1).string("k").u32(7).u8(2).bytes,
                 "bool with the invalid value 2");
    expect_error(RawGguf().header(0, 2).string("k").u32(4).u32(1).string("k").u32(4).u32(2).bytes,
                 "metadata key 'k' appears twice");
    expect_error(RawGguf().header(0, 1).string("").u32(4).u32(1).bytes, "invalid length 0");
    expect_error(RawGguf().header(0, 1).string("general.alignment").u32(4).u32(3).bytes,
                 "power of two");
    RawGguf deep;
    deep.header(0, 1).string("deep").u32(9);
    for (int i = 0; i < 6; ++i) deep.u32(9).u64(1);
    deep.u32(4).u64(1).u32(0);
    expect_error(deep.bytes, "nests arrays too deeply");
}

TEST_F(GgufHostileTest, BadTensorDirectories) {
    const auto one = [](std::vector<uint64_t> shape, uint32_t type, uint64_t offset, size_t data) {
        return RawGguf()
            .header(1, 0)
            .tensor("t", std::move(shape), type, offset)
            .pad_to(32)
            .zeros(data)
            .bytes;
    };
    expect_error(one({0}, 0, 0, 64), "tensor 't' has an impossible shape");
    expect_error(one({1, 1, 1, 1, 1}, 0, 0, 64), "has 5 dimensions");
    expect_error(one({uint64_t{1} << 40, uint64_t{1} << 40}, 0, 0, 64), "impossible shape");
    expect_error(one({16}, 0, 8, 64), "is not a multiple of the alignment 32");
    expect_error(one({16}, 8, 0, 64), "not a multiple of Q8_0's block of 32");
    // MXFP4's 17-byte blocks: a row must hold whole ones, and 64 elements take 34 bytes, not 33.
    expect_error(one({16}, 39, 0, 64), "not a multiple of MXFP4's block of 32");
    expect_error(one({64}, 39, 0, 33), "ends at byte 98 but the file has 97 bytes");
    expect_error(one({16}, 0, 0, 63), "tensor 't' ends at byte");
    expect_error(one({16}, 0, 0, 63), "truncated or corrupt file");
    expect_error(one({16}, 0, uint64_t{1} << 62, 64), "truncated or corrupt file");
    expect_error(one({16}, 77, 0, 64), "has type unknown type 77");
    expect_error(one({16}, 16, 0, 64), "has type IQ2_XXS, which Hearth does not support");

    const auto two = [](uint64_t second_offset) {
        return RawGguf()
            .header(2, 0)
            .tensor("a", {16}, 0, 0)
            .tensor("b", {16}, 0, second_offset)
            .pad_to(32)
            .zeros(256)
            .bytes;
    };
    expect_error(two(32), "tensors 'a' and 'b' overlap");
    EXPECT_EQ(load_error(two(64)), "");
    expect_error(RawGguf()
                     .header(2, 0)
                     .tensor("a", {8}, 0, 0)
                     .tensor("a", {8}, 0, 32)
                     .pad_to(32)
                     .zeros(64)
                     .bytes,
                 "tensor 'a' appears twice");
}

TEST_F(GgufHostileTest, TruncationAtAnyPointOfARealModel) {
    const auto whole = test::read_bytes(test::model_path("stories260K.gguf"));
    const size_t data_start = GgufFile::open(test::model_path("stories260K.gguf"))->data_offset();
    std::vector<size_t> cuts;
    for (size_t cut = 1; cut < data_start; cut += 13) cuts.push_back(cut);
    for (size_t cut = data_start; cut < whole.size(); cut += whole.size() / 97) cuts.push_back(cut);
    cuts.push_back(whole.size() - 1);
    int errors = 0;
    for (const size_t cut : cuts) {
        const std::vector<std::byte> truncated(whole.begin(),
                                               whole.begin() + static_cast<long>(cut));
        const std::string message = load_error(truncated);
        EXPECT_NE(message.find("truncated or corrupt file"), std::string::npos)
            << "cut at " << cut << ": " << message;
        errors += message.empty() ? 0 : 1;
    }
    EXPECT_EQ(errors, static_cast<int>(cuts.size()));
    EXPECT_GT(cuts.size(), 500u);
}

// Random corruption of a small valid file's header: whatever the bytes, the reader either
// accepts a self-consistent file or throws LoadError. Seeded, so every run checks the same files.
TEST_F(GgufHostileTest, RandomHeaderCorruptionNeverCrashes) {
    GgufWriter writer;
    writer.set("general.architecture", GgufValue(std::string("llama")));
    writer.set("list",
               GgufValue(GgufArray{GgufValueType::Float32, {GgufValue(1.0f), GgufValue(2.0f)}}));
    writer.add_tensor("a", TensorType::Q8_0, {32, 2}, std::vector<std::byte>(68));
    writer.add_tensor("b", TensorType::F32, {8}, std::vector<std::byte>(32));
    const auto valid = writer.serialize();
    const size_t header_size = valid.size() - 128;
    std::mt19937 random(20261122);
    int accepted = 0;
    for (int round = 0; round < 1500; ++round) {
        auto bytes = valid;
        const int flips = 1 + static_cast<int>(random() % 4);
        for (int f = 0; f < flips; ++f) {
            const size_t at = random() % header_size;
            bytes[at] = static_cast<std::byte>(random() % 3 == 0 ? 0xff : random() & 0xff);
        }
        const auto path = m_directory.write("fuzz.gguf", bytes);
        try {
            const auto file = GgufFile::open(path);
            for (const auto& tensor : file->tensors()) {
                ASSERT_LE(file->data_offset() + tensor.offset + tensor.bytes, bytes.size());
            }
            ++accepted;
        } catch (const LoadError&) {
        }
    }
    // Most corruptions are caught; some (e.g. inside a string value) leave a valid file.
    EXPECT_LT(accepted, 1500);
}

}  // namespace
}  // namespace hearth
