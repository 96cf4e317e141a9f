// The GGUF reader on arbitrary bytes (header, metadata, tensor directory), then everything a
// load builds from a file it accepts: the model (shapes, types, architecture keys, every
// architecture), its tokenizer and its chat template. Each may refuse the file with a LoadError
// (or, for a template that cannot be compiled, a RenderError); any other way out is a defect.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/format/gguf_file.h"
#include "engine/model/load_error.h"
#include "engine/model/model.h"
#include "engine/text/chat_template.h"
#include "engine/text/tokenizer.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// The input as a file the reader maps, through the same open/fstat/mmap path as a model on
// disk; a memory file keeps the disk out of the loop.
class MemoryFile final {
public:
    MemoryFile() : m_fd(::memfd_create("gguf_fuzz", MFD_CLOEXEC)) {
        if (m_fd < 0) {
            std::perror("memfd_create");
            std::abort();
        }
    }
    ~MemoryFile() { ::close(m_fd); }
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;

    std::string hold(const uint8_t* data, size_t size) {
        if (::ftruncate(m_fd, 0) != 0 ||
            ::pwrite(m_fd, data, size, 0) != static_cast<ssize_t>(size)) {
            std::perror("gguf_fuzz: writing the memory file");
            std::abort();
        }
        return "/proc/self/fd/" + std::to_string(m_fd);
    }

private:
    int m_fd;
};

// What the engine reads from a vocabulary: also from files that are not whole models, as
// hearth-cli --tokenize reads vocabulary-only ones.
void read_vocabulary(const hearth::GgufFile& file) {
    try {
        const auto tokenizer = hearth::make_tokenizer(file);
        tokenizer->decode(tokenizer->encode("Hello world <s>", {.parse_special = true}));
        hearth::ChatTemplate::from_model(file, tokenizer->vocabulary());
    } catch (const hearth::LoadError&) {
    } catch (const hearth::jinja::RenderError&) {
    }
}

void read_model(std::unique_ptr<hearth::GgufFile> file) {
    try {
        const hearth::Model model(std::move(file));
    } catch (const hearth::LoadError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hearth::fuzz::silence_logs();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static MemoryFile file;
    const std::string path = file.hold(data, size);
    std::unique_ptr<hearth::GgufFile> gguf;
    try {
        gguf = hearth::GgufFile::open(path, {.prefault = false});
    } catch (const hearth::LoadError&) {
        return 0;
    }
    read_vocabulary(*gguf);
    read_model(std::move(gguf));
    return 0;
}
