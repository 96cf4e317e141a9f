// A smaller model of the same vocabulary that drafts tokens for a bigger one's speculative
// answers (model_drafter.h), on the CPU backend beside it. Its vocabulary must mean the same
// tokens as the verifying model's, or its drafts would be other words: that is checked at load.
#pragma once

#include <filesystem>
#include <memory>

#include "engine/compute/backend.h"
#include "engine/model/load_error.h"
#include "engine/model/model.h"
#include "engine/text/vocabulary.h"

namespace hearth {

// The draft model's vocabulary differs from the model's; the message names the first difference.
class DraftMismatchError : public LoadError {
public:
    using LoadError::LoadError;
};

// Throws DraftMismatchError unless `draft` tokenizes as `model` does: the same tokenizer kind,
// the same BOS and EOS, and the same text for every id both have (sizes may differ by padding
// rows of at most 128 ids, as the same family's files often do).
void check_draft_vocabulary(const Vocabulary& model, const Vocabulary& draft);

struct DraftModel {
    std::unique_ptr<Model> model;
    std::unique_ptr<Backend> backend;

    // Loads `file` to draft for a model of vocabulary `verifier` on `threads` CPU threads (0: one
    // per hardware thread). Throws LoadError for the file and DraftMismatchError as above.
    static std::unique_ptr<DraftModel> load(const std::filesystem::path& file,
                                            const Vocabulary& verifier, int threads);
};

}  // namespace hearth
