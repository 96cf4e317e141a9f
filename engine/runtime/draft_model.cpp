#include "engine/runtime/draft_model.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "engine/compute/backend_factory.h"
#include "engine/model/cpu_load_options.h"

namespace hearth {
namespace {

// Ids past the shorter vocabulary tolerated as padding rows.
constexpr int32_t kPaddingIds = 128;

[[noreturn]] void mismatch(const std::string& what) {
    throw DraftMismatchError("The draft model cannot draft for this model: " + what);
}

std::string id_text(int32_t id) {
    return id < 0 ? "none" : std::to_string(id);
}

}  // namespace

void check_draft_vocabulary(const Vocabulary& model, const Vocabulary& draft) {
    if (draft.model != model.model) {
        mismatch("its tokenizer is '" + draft.model + "', the model's '" + model.model + "'");
    }
    if (std::abs(draft.size() - model.size()) > kPaddingIds) {
        mismatch("its vocabulary has " + std::to_string(draft.size()) + " tokens, the model's " +
                 std::to_string(model.size()));
    }
    if (draft.bos != model.bos || draft.eos != model.eos) {
        mismatch("its BOS/EOS are " + id_text(draft.bos) + "/" + id_text(draft.eos) +
                 ", the model's " + id_text(model.bos) + "/" + id_text(model.eos));
    }
    const int32_t shared = std::min(draft.size(), model.size());
    for (int32_t id = 0; id < shared; ++id) {
        const std::string_view drafted = draft.tokens[static_cast<size_t>(id)];
        const std::string_view own = model.tokens[static_cast<size_t>(id)];
        if (drafted != own) {
            mismatch("its token " + std::to_string(id) + " is '" + std::string(drafted) +
                     "', the model's '" + std::string(own) + "'");
        }
    }
}

std::unique_ptr<DraftModel> DraftModel::load(const std::filesystem::path& file,
                                             const Vocabulary& verifier, int threads) {
    auto model = Model::load(file, cpu_load_options());
    check_draft_vocabulary(verifier, Vocabulary::from_gguf(model->file()));
    auto draft = std::make_unique<DraftModel>();
    draft->backend = make_backend({.name = "cpu", .threads = threads}, *model);
    draft->model = std::move(model);
    return draft;
}

}  // namespace hearth
