// The decode loop's speculative path as the backend sees it: which passes it asks for.
#include "engine/generation/decode_loop.h"

#include <gtest/gtest.h>

#include <numeric>

#include "engine/compute/cpu_backend.h"
#include "engine/generation/session.h"
#include "engine/model/model.h"
#include "tests/support/requests.h"
#include "tests/support/shared_data.h"

namespace hearth {
namespace {

// A real backend, with a record of the passes asked of it.
class RecordingBackend final : public Backend {
public:
    explicit RecordingBackend(Backend& backend) : m_backend(backend) {}

    std::string name() const override { return m_backend.name(); }
    std::unique_ptr<Sequence> create_sequence(int capacity) override {
        return m_backend.create_sequence(capacity);
    }
    std::vector<float> forward(std::span<const int32_t> tokens, Sequence& sequence,
                               LogitRows rows) override {
        if (rows == LogitRows::All) verify_passes.push_back(static_cast<int>(tokens.size()));
        return m_backend.forward(tokens, sequence, rows);
    }
    std::vector<int> chunk_sizes() const override { return m_backend.chunk_sizes(); }
    int decode(Sequence& sequence, int32_t input, int count, TokenPicker& picker) override {
        const int accepted = m_backend.decode(sequence, input, count, picker);
        plain_tokens += accepted;
        return accepted;
    }

    std::vector<int> verify_passes;  // tokens in each pass that returned every row's logits
    int plain_tokens = 0;            // tokens from Backend::decode

private:
    Backend& m_backend;
};

struct Decoded {
    GenerationResult result;
    std::vector<int> verify_passes;
    int plain_tokens = 0;
};

Decoded generate(Backend& backend, const Tokenizer& tokenizer, const GenerationRequest& request) {
    RecordingBackend recording(backend);
    Session session(recording, tokenizer, 1024);
    Decoded decoded;
    decoded.result = session.generate(request, {});
    decoded.verify_passes = recording.verify_passes;
    decoded.plain_tokens = recording.plain_tokens;
    return decoded;
}

// Where the conversation offers no draft, tokens come from plain decode calls (whole chunks on a
// device), not from one-row passes; every pass that returns all rows verifies a draft, and the
// answer is plain greedy's.
TEST(DecodeLoop, SpeculationVerifiesOnlyWhereThereIsADraftAndDecodesPlainlyElsewhere) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    const auto tokenizer = make_tokenizer(model->file());
    CpuBackend backend(*model, {.threads = 2});
    auto request = test::greedy(tokenizer->encode("Once upon a time", {}), 200);
    const Decoded plain = generate(backend, *tokenizer, request);
    EXPECT_TRUE(plain.verify_passes.empty());
    request.speculative = true;
    const Decoded speculative = generate(backend, *tokenizer, request);

    EXPECT_EQ(speculative.result.tokens, plain.result.tokens);
    ASSERT_FALSE(speculative.verify_passes.empty()) << "a 200-token story repeats itself";
    for (const int tokens : speculative.verify_passes) EXPECT_GE(tokens, 2);  // input + drafts
    EXPECT_GT(speculative.plain_tokens, 0);
    const auto& stats = speculative.result.stats;
    EXPECT_EQ(
        stats.draft_tokens + static_cast<int>(speculative.verify_passes.size()),
        std::accumulate(speculative.verify_passes.begin(), speculative.verify_passes.end(), 0));
}

}  // namespace
}  // namespace hearth
