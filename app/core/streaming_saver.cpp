#include "app/core/streaming_saver.h"

namespace hearth::core {

void StreamingSaver::update(const Message& message) {
    if (m_store == nullptr) return;
    if (m_since_write.isValid() && m_since_write.elapsed() < kIntervalMilliseconds) return;
    m_store->save_message(m_conversation, message);
    m_since_write.start();
}

void StreamingSaver::finish(const Message& message) {
    if (m_store != nullptr) m_store->save_message(m_conversation, message);
}

}  // namespace hearth::core
