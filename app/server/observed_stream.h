// A request's stream with an observer of its outcome: whoever reads the stream (the HTTP
// handler writing the answer) sees every event unchanged, and the observer is told of the result
// of an answer that ran to its end as the result is read. The server uses it for
// ApiServerOptions::on_chat_answered, without the scheduler or the response writers knowing.
#pragma once

#include <functional>
#include <memory>

#include "engine/serving/batch_scheduler.h"

namespace hearth::server {

using ResultObserver = std::function<void(const GenerationResult&)>;

// `observer` is called once, on the thread reading the stream, when it reads a result whose
// answer was not cancelled (a client that went away, a server stopping); never for an error.
// What it throws is logged and dropped: an observer must not cost a client its answer.
std::shared_ptr<RequestStream> observe_result(std::shared_ptr<RequestStream> stream,
                                              ResultObserver observer);

}  // namespace hearth::server
