// Draft-model speculation on every shared model pair that shares a vocabulary: the greedy answer
// with drafts is token for token the model's answer alone, whichever file drafts; files of
// another vocabulary are refused naming the difference.
#include "engine/runtime/draft_model.h"

#include <gtest/gtest.h>

#include <map>

#include "engine/compute/backend_factory.h"
#include "engine/generation/model_drafter.h"
#include "engine/generation/session.h"
#include "engine/runtime/engine.h"
#include "engine/text/tokenizer.h"
#include "tests/support/requests.h"
#include "tests/support/shared_data.h"
#include "tests/support/unsupported_files.h"

namespace hearth {
namespace {

constexpr int kContext = 256;
constexpr int kAnswerTokens = 16;

// Every shared model Hearth runs, by file name.
std::vector<std::string> supported_models() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(test::shared_dir() / "models")) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() == ".gguf" && !test::find_unsupported(name)) {
            names.push_back(name);
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

struct Loaded {
    std::unique_ptr<Model> model;
    std::unique_ptr<Tokenizer> tokenizer;
    std::unique_ptr<Backend> backend;

    const Vocabulary& vocabulary() const { return tokenizer->vocabulary(); }
};

std::map<std::string, Loaded> load_all() {
    std::map<std::string, Loaded> loaded;
    for (const std::string& name : supported_models()) {
        Loaded one{.model = Model::load(test::model_path(name))};
        one.tokenizer = make_tokenizer(one.model->file());
        one.backend = make_backend({.name = "cpu", .threads = 1}, *one.model);
        loaded.emplace(name, std::move(one));
    }
    return loaded;
}

bool compatible(const Vocabulary& model, const Vocabulary& draft) {
    try {
        check_draft_vocabulary(model, draft);
        return true;
    } catch (const DraftMismatchError&) {
        return false;
    }
}

// A greedy answer in a fresh session, drafted by `drafter` (none: plain greedy).
GenerationResult answer(const Loaded& verifier, std::shared_ptr<Drafter> drafter) {
    const std::vector<int32_t> prompt =
        verifier.tokenizer->encode("Once upon a time there was", {.add_special = true});
    GenerationRequest request = test::greedy(prompt, kAnswerTokens);
    request.speculative = drafter != nullptr;
    request.drafter = std::move(drafter);
    Session session(*verifier.backend, *verifier.tokenizer, kContext);
    return session.generate(request, {});
}

TEST(DraftModel, EveryPairSharingAVocabularyAnswersExactlyAsTheModelAlone) {
    const auto loaded = load_all();
    int pairs = 0;
    for (const auto& [verifier_name, verifier] : loaded) {
        const GenerationResult alone = answer(verifier, nullptr);
        for (const auto& [draft_name, draft] : loaded) {
            if (!compatible(verifier.vocabulary(), draft.vocabulary())) continue;
            SCOPED_TRACE(draft_name + " drafting for " + verifier_name);
            ++pairs;
            auto drafter = std::make_shared<ModelDrafter>(*draft.backend, kContext,
                                                          verifier.vocabulary().size());
            const GenerationResult drafted = answer(verifier, drafter);
            EXPECT_EQ(drafted.tokens, alone.tokens);
            EXPECT_EQ(drafted.text, alone.text);
            EXPECT_GT(drafted.stats.draft_tokens, 0);
            // A model drafting for itself guesses its own greedy answer.
            if (draft_name == verifier_name && alone.tokens.size() > 1) {
                EXPECT_EQ(drafted.stats.accepted_draft_tokens, drafted.stats.draft_tokens);
            }
        }
    }
    // Every synthetic file copies stories260K's 512-token vocabulary (fixtures/models/README.md):
    // the 19 synthetic llama files alone make 361 ordered pairs.
    EXPECT_GE(pairs, 361);
}

TEST(DraftModel, AnotherVocabularyIsRefusedNamingTheDifference) {
    const auto loaded = load_all();
    const Vocabulary& llama = loaded.at("synth-llama-256-Q4_0.gguf").vocabulary();
    EXPECT_NO_THROW(
        check_draft_vocabulary(llama, loaded.at("synth-llama-256-F16.gguf").vocabulary()));
    try {
        check_draft_vocabulary(llama, loaded.at("llama-2-tiny-random.gguf").vocabulary());
        ADD_FAILURE() << "Llama 2's vocabulary drafted for the 512-token one";
    } catch (const DraftMismatchError& error) {
        EXPECT_NE(
            std::string(error.what()).find("its vocabulary has 32000 tokens, the model's 512"),
            std::string::npos)
            << error.what();
    }
    // Same tokenizer kind, other tokens.
    Vocabulary other = llama;
    other.tokens.set(300, "elsewhere");
    try {
        check_draft_vocabulary(llama, other);
        ADD_FAILURE() << "a changed token was accepted";
    } catch (const DraftMismatchError& error) {
        EXPECT_NE(std::string(error.what()).find("token 300 is 'elsewhere'"), std::string::npos)
            << error.what();
    }
}

TEST(DraftModel, TheEngineDraftsUntilAnotherModelLoads) {
    Engine engine({.backend = {.kind = BackendPreference::Kind::Cpu, .threads = 1}});
    engine.load(test::model_path("synth-llama-256-F16.gguf"));
    EXPECT_THROW(engine.load_draft(test::model_path("llama-2-tiny-random.gguf")),
                 DraftMismatchError);
    EXPECT_FALSE(engine.has_draft());
    engine.load_draft(test::model_path("synth-llama-256-Q4_0.gguf"));
    EXPECT_TRUE(engine.has_draft());
    const ChatRequest chat{.messages = {{.role = "user", .content = "Tell me a story."}},
                           .context_length = kContext,
                           .max_tokens = kAnswerTokens,
                           .sampler = {.temperature = 0.0f},
                           .fresh_seed = false};
    const GenerationResult plain = engine.chat(chat, {.speculative = false});
    const GenerationResult drafted = engine.chat({.conversation = 1,
                                                  .messages = chat.messages,
                                                  .context_length = kContext,
                                                  .max_tokens = kAnswerTokens,
                                                  .sampler = {.temperature = 0.0f},
                                                  .fresh_seed = false},
                                                 {.speculative = true});
    EXPECT_EQ(drafted.tokens, plain.tokens);
    EXPECT_GT(drafted.stats.draft_tokens, 0);
    engine.load(test::model_path("synth-llama-256-Q8_0.gguf"));
    EXPECT_FALSE(engine.has_draft());
}

}  // namespace
}  // namespace hearth
