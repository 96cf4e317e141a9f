// JSON mode from a stranger's schema: JSON Schema text -> JsonSchema -> JsonGrammar -> the
// token-level JsonConstraint over a real vocabulary. The input is the schema, a 0 byte, then
// bytes that steer the document: first fed to the grammar directly, then used as logits for
// the constraint to choose tokens from. A schema may be refused only with a SchemaError, and a
// document the constraint declares finished must be JSON.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/generation/sampler.h"
#include "engine/grammar/json_constraint.h"
#include "engine/grammar/json_grammar.h"
#include "engine/grammar/json_schema.h"
#include "engine/grammar/token_trie.h"
#include "engine/text/jinja/json.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// Enough for the constraint to open, fill and close a document, and to run into its budget.
constexpr int kTokenBudget = 24;

void feed_grammar(const hearth::JsonGrammar& grammar, std::string_view bytes) {
    auto state = grammar.start();
    for (const char byte : bytes) {
        if (!grammar.advance(state, static_cast<uint8_t>(byte))) return;
        grammar.can_end(state);
    }
    grammar.distance(state);
}

// Chooses tokens greedily over logits drawn from `steer`, as the decode loop would over a
// model's, and checks that a finished document parses.
void generate(const std::shared_ptr<const hearth::JsonGrammar>& grammar, std::string_view steer) {
    static const hearth::Tokenizer& tokenizer = hearth::fuzz::small_tokenizer();
    static const auto trie = std::make_shared<const hearth::TokenTrie>(tokenizer);
    hearth::JsonConstraint constraint(grammar, trie, tokenizer);
    hearth::Sampler sampler({.temperature = 0.0f});
    std::vector<float> logits(static_cast<size_t>(tokenizer.vocabulary().size()));
    std::string document;
    for (int left = kTokenBudget; left > 0 && !constraint.finished(); --left) {
        for (size_t i = 0; i < logits.size(); ++i) {
            logits[i] = steer.empty()
                            ? 0.0f
                            : static_cast<float>(static_cast<uint8_t>(
                                  steer[(i * 7 + static_cast<size_t>(left)) % steer.size()]));
        }
        const int32_t token = constraint.pick(logits, sampler, left);
        if (token < 0) break;
        constraint.accept(token);
        if (tokenizer.is_end_of_generation(token)) break;
        document += trie->bytes(token);
    }
    if (!constraint.finished()) return;
    try {
        hearth::jinja::parse_json(document);
    } catch (const std::invalid_argument& error) {
        std::fprintf(stderr, "json_schema: a finished document is not JSON (%s): %s\n",
                     error.what(), document.c_str());
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hearth::fuzz::silence_logs();
    hearth::fuzz::small_tokenizer();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t end = std::min(input.find('\0'), input.size());
    const std::string_view schema_text = input.substr(0, end);
    const std::string_view steer = input.substr(std::min(end + 1, input.size()));
    std::shared_ptr<const hearth::JsonGrammar> grammar;
    try {
        grammar =
            std::make_shared<const hearth::JsonGrammar>(hearth::JsonSchema::parse(schema_text));
    } catch (const hearth::SchemaError&) {
        return 0;
    }
    feed_grammar(*grammar, steer);
    generate(grammar, steer);
    return 0;
}
