#include "tests/support/requests.h"

namespace hearth::test {

GenerationRequest greedy(std::vector<int32_t> prompt, int max_tokens) {
    GenerationRequest request;
    request.prompt = std::move(prompt);
    request.max_tokens = max_tokens;
    request.sampler.temperature = 0.0f;
    return request;
}

std::vector<int32_t> salted_prompt(int length, int salt) {
    std::vector<int32_t> tokens{1};
    for (int i = 1; i < length; ++i) tokens.push_back(3 + (i * 53 + salt) % 500);
    return tokens;
}

}  // namespace hearth::test
