// What Hugging Face's Hub (or whatever answers in its place: HF_ENDPOINT, a proxy) sends the
// downloader: the model search answer, a repository's tree with LFS sha256 and sizes, made into
// the choices the dialog lists, and the Link header that pages the tree. The first byte picks
// which; the rest is the answer. Whatever comes, what the parsers give must be what their callers
// rely on: files with a path and a size, sizes that add up without overflow, and next pages only
// on the server that was asked.
#include <QByteArray>
#include <QUrl>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "app/core/downloads/gguf_choices.h"
#include "app/core/downloads/hub_json.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace hearth::downloads;

[[noreturn]] void defect(const char* what) {
    std::fprintf(stderr, "hub_json_fuzz: %s\n", what);
    std::abort();
}

void read_search(const QByteArray& answer) {
    const auto models = parse_model_search(answer);
    for (const auto& model : models.value) {
        if (model.id.isEmpty()) defect("a search result without an id");
    }
}

void read_tree(const QByteArray& answer) {
    const auto tree = parse_tree(answer);
    if (!tree.ok()) return;
    for (const auto& file : tree.value) {
        if (file.path.isEmpty() || file.size < 0) defect("a file without a path or a size");
    }
    // The dialog lists the .gguf files as choices with their total size.
    for (const auto& choice : gguf_choices(tree.value)) {
        if (choice.parts.empty()) defect("a choice without a file");
        if (choice.total_bytes() < 0) defect("a choice of negative size");
        find_choice({choice}, choice.parts.front().path);
    }
}

void read_link(const QByteArray& header) {
    const QUrl page(
        QStringLiteral("https://huggingface.co/api/models/owner/name/tree/main"
                       "?recursive=true"));
    const QUrl next = parse_next_page(page, header);
    if (next.isEmpty()) return;
    if (!next.isValid()) defect("an invalid next page");
    if (next.scheme() != page.scheme() || next.host() != page.host() || next.port() != -1) {
        defect("a next page on another server");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    hearth::fuzz::FuzzInput input(data, size);
    const uint8_t which = input.byte();
    const std::string_view rest = input.rest();
    const QByteArray answer(rest.data(), static_cast<qsizetype>(rest.size()));
    switch (which % 3) {
        case 0:
            read_search(answer);
            break;
        case 1:
            read_tree(answer);
            break;
        default:
            read_link(answer);
            break;
    }
    return 0;
}
