// A chat request as the body of an OpenAI-compatible POST /chat/completions: the whole
// conversation (the remote side's prompt cache does the reuse), and each generation setting in
// the field the API has for it. Settings the API has no field for are reported, not dropped
// silently.
#pragma once

#include <string>
#include <vector>

#include "engine/runtime/chat_request.h"

namespace hearth::remote {

struct ChatRequestBody {
    std::string json;
    // Settings of the request that no field carries (e.g. "penalty window"): the remote
    // engine applies its own.
    std::vector<std::string> not_sent;
    // Settings sent in fields outside OpenAI's own API (top_k, min_p, repeat_penalty,
    // chat_template_kwargs) that vLLM and llama.cpp's server read and others may ignore.
    std::vector<std::string> extensions;
};

ChatRequestBody chat_request_body(const std::string& model, const ChatRequest& request,
                                  bool stream);

}  // namespace hearth::remote
