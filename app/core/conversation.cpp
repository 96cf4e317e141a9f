#include "app/core/conversation.h"

#include <QDateTime>

#include <algorithm>

namespace hearth::core {

Conversation::Conversation(int id, QString title)
    : m_id(id), m_title(std::move(title)), m_created_ms(QDateTime::currentMSecsSinceEpoch()) {}

void Conversation::restore(Message message) {
    m_next_id = std::max(m_next_id, message.id + 1);
    m_leaf = message.id;
    m_messages.push_back(std::move(message));
}

int Conversation::add(int parent, const QString& role, const QString& text, bool finished) {
    Message message;
    message.id = m_next_id++;
    message.parent = parent;
    message.role = role;
    message.text = text;
    message.finished = finished;
    message.created_ms = QDateTime::currentMSecsSinceEpoch();
    m_messages.push_back(std::move(message));
    m_leaf = m_messages.back().id;
    return m_leaf;
}

Message* Conversation::find(int id) {
    const auto found = std::find_if(m_messages.begin(), m_messages.end(),
                                    [id](const Message& message) { return message.id == id; });
    return found == m_messages.end() ? nullptr : &*found;
}

const Message* Conversation::find(int id) const {
    return const_cast<Conversation*>(this)->find(id);
}

std::vector<int> Conversation::thread() const {
    std::vector<int> ids;
    for (const Message* message = find(m_leaf); message != nullptr; message = find(message->parent))
        ids.push_back(message->id);
    std::reverse(ids.begin(), ids.end());
    return ids;
}

std::vector<int> Conversation::siblings(int id) const {
    const Message* message = find(id);
    std::vector<int> ids;
    if (message == nullptr) return ids;
    for (const auto& other : m_messages) {
        if (other.parent == message->parent) ids.push_back(other.id);
    }
    return ids;
}

void Conversation::show_branch(int id) {
    if (find(id) == nullptr) return;
    int leaf = id;
    // Follow the most recent child at each step.
    for (bool descended = true; descended;) {
        descended = false;
        for (auto it = m_messages.rbegin(); it != m_messages.rend(); ++it) {
            if (it->parent == leaf) {
                leaf = it->id;
                descended = true;
                break;
            }
        }
    }
    m_leaf = leaf;
}

void Conversation::show_thread_to(int id) {
    if (find(id) != nullptr) m_leaf = id;
}

}  // namespace hearth::core
