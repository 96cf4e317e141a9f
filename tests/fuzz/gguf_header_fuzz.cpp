// The GGUF reader on what a download's estimate has of a file before it is downloaded: the
// first bytes of one file (GgufFile from a GgufBeginning, asking for more with
// GgufHeaderIncomplete the way header_estimate.cpp does), the beginnings of a split model's
// parts together, and split part names. Each beginning is copied into a buffer of exactly its
// size, so AddressSanitizer stops any read past the bytes the reader was given.
//   byte 0: what to fuzz (below); the rest as each mode reads it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/format/gguf_file.h"
#include "engine/format/split_name.h"
#include "engine/model/load_error.h"
#include "engine/model/model.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using hearth::fuzz::FuzzInput;

// The most bytes a file may claim beyond those in the input: enough for every length check to
// be reached both ways, small enough that "the file is bigger" stays plausible.
constexpr uint32_t kMostMissingBytes = 1 << 20;
constexpr int kMostParts = 4;

[[noreturn]] void defect(const char* what) {
    std::fprintf(stderr, "gguf_header_fuzz: %s\n", what);
    std::abort();
}

std::vector<std::byte> copy_of(std::string_view bytes) {
    const auto* begin = reinterpret_cast<const std::byte*>(bytes.data());
    return {begin, begin + bytes.size()};
}

// What a parse that succeeded is, to compare two parses of the same header.
struct Parsed {
    size_t metadata = 0;
    size_t tensors = 0;
    uint64_t data_offset = 0;
    bool operator==(const Parsed&) const = default;
};

// Parses the first `available` bytes of `file` (which claims `file_size` bytes); nullopt when the
// header is refused or continues past them (then `needed` is how many it asked for).
std::optional<Parsed> parse_beginning(std::string_view file, size_t available, uint64_t file_size,
                                      uint64_t& needed) {
    const std::vector<std::byte> bytes = copy_of(file.substr(0, available));
    needed = 0;
    try {
        const hearth::GgufFile parsed(hearth::GgufBeginning{bytes, file_size, "fuzz.gguf"});
        if (parsed.has_tensor_data()) defect("a header alone has tensor data");
        return Parsed{parsed.metadata().size(), parsed.tensors().size(), parsed.data_offset()};
    } catch (const hearth::GgufHeaderIncomplete& incomplete) {
        if (incomplete.needed <= bytes.size()) defect("asked for more bytes than it was given");
        if (incomplete.needed > file_size) defect("asked for bytes past the end of the file");
        needed = incomplete.needed;
    } catch (const hearth::LoadError&) {
    }
    return std::nullopt;
}

// The model an estimate builds from a header it parsed.
void build_model(std::unique_ptr<hearth::GgufFile> file) {
    try {
        const hearth::Model model(std::move(file));
    } catch (const hearth::LoadError&) {
    }
}

// One file read as header_estimate.cpp reads it: a first range, then, while the header goes on
// past what is read, the larger of what the reader asks for and twice as much.
//   byte: the first read's size, 2^(n % 17) bytes; word: bytes the file claims beyond the input.
void read_like_an_estimate(FuzzInput& input) {
    size_t available = size_t{1} << (input.byte() % 17);
    const uint64_t missing = input.word() % kMostMissingBytes;
    const std::string_view file = input.rest();
    const uint64_t file_size = file.size() + missing;
    available = std::min(available, file.size());
    uint64_t needed = 0;
    std::optional<Parsed> parsed;
    while (!(parsed = parse_beginning(file, available, file_size, needed)) && needed != 0 &&
           available < file.size()) {
        available = std::min<uint64_t>(std::max<uint64_t>(needed, 2 * available), file.size());
    }
    if (!parsed) return;
    // The bytes past the header are never read, so having all of them changes nothing.
    uint64_t unused = 0;
    if (parse_beginning(file, file.size(), file_size, unused) != parsed) {
        defect("the header parses differently with more of the file at hand");
    }
    const std::vector<std::byte> bytes = copy_of(file.substr(0, available));
    build_model(
        std::make_unique<hearth::GgufFile>(hearth::GgufBeginning{bytes, file_size, "fuzz.gguf"}));
}

// A split model's parts, each the beginning of its file:
//   byte: part count 1 to 4; per part but the last, a word for its length; then each part's
//   word of bytes it claims beyond those; the rest is cut into the parts.
void read_split_parts(FuzzInput& input) {
    const int count = 1 + input.byte() % kMostParts;
    std::vector<uint32_t> lengths(count);
    std::vector<uint64_t> missing(count);
    for (int part = 0; part + 1 < count; ++part) lengths[part] = input.word();
    for (int part = 0; part < count; ++part) missing[part] = input.word() % kMostMissingBytes;
    std::vector<std::vector<std::byte>> bytes;
    std::vector<hearth::GgufBeginning> parts;
    for (int part = 0; part < count; ++part) {
        const size_t length =
            part + 1 < count ? lengths[part] % (input.remaining() + 1) : input.remaining();
        bytes.push_back(copy_of(input.take(length)));
    }
    for (int part = 0; part < count; ++part) {
        parts.push_back({bytes[part], bytes[part].size() + missing[part],
                         hearth::split_part_path("fuzz", part + 1, count).string()});
    }
    std::unique_ptr<hearth::GgufFile> file;
    try {
        file = std::make_unique<hearth::GgufFile>(parts);
    } catch (const hearth::GgufHeaderIncomplete&) {
        return;
    } catch (const hearth::LoadError&) {
        return;
    }
    build_model(std::move(file));
}

// A file name, read as the split pattern: what parses must name itself again.
void read_split_name(FuzzInput& input) {
    const std::filesystem::path path(std::string(input.rest()));
    const auto name = hearth::parse_split_name(path);
    if (!name) return;
    if (name->number < 1 || name->number > name->count) defect("a part number outside its count");
    if (hearth::split_part_path(name->prefix, name->number, name->count) != path) {
        defect("a split name that does not name its own part again");
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hearth::fuzz::silence_logs();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzInput input(data, size);
    switch (input.byte() % 3) {
        case 0:
            read_like_an_estimate(input);
            break;
        case 1:
            read_split_parts(input);
            break;
        default:
            read_split_name(input);
            break;
    }
    return 0;
}
