#include "engine/grammar/json_grammar.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace hearth {
namespace {

using Kind = JsonGrammar::Kind;

// Object and array phases. "Open": just after the bracket; "Next": after a comma.
enum : uint8_t { kOpen, kInKey, kKeyDone, kInValue, kValueDone, kNext };
// Number phases; the ones a number may end in are kZero, kInteger, kFraction and kExponent.
enum : uint8_t { kSign, kZero, kInteger, kDot, kFraction, kExponentMark, kExponentSign, kExponent };
// String phases.
enum : uint8_t { kPlain, kEscape, kUnicode, kUtf8 };

constexpr std::string_view kKeywords[] = {"true", "false", "null"};

bool is_digit(uint8_t byte) {
    return byte >= '0' && byte <= '9';
}
bool is_hex(uint8_t byte) {
    return is_digit(byte) || (byte >= 'a' && byte <= 'f') || (byte >= 'A' && byte <= 'F');
}
bool is_space(uint8_t byte) {
    return byte == ' ' || byte == '\n' || byte == '\t' || byte == '\r';
}

uint16_t byte_range(uint8_t low, uint8_t high) {
    return static_cast<uint16_t>(low | high << 8);
}

}  // namespace

JsonGrammar::JsonGrammar(JsonSchema schema) : m_schema(std::move(schema)) {}

JsonGrammar::State JsonGrammar::start() const {
    State state;
    push_value(state, m_schema.root());
    return state;
}

void JsonGrammar::push_value(State& state, int node) const {
    Frame frame;
    frame.kind = Kind::Value;
    frame.node = static_cast<int16_t>(node);
    state.frames[state.depth++] = frame;
}

bool JsonGrammar::advance(State& state, std::string_view bytes) const {
    for (const char byte : bytes) {
        if (!advance(state, static_cast<uint8_t>(byte))) return false;
    }
    return true;
}

bool JsonGrammar::advance(State& state, uint8_t byte) const {
    while (state.depth > 0) {
        Frame& frame = state.frames[state.depth - 1];
        switch (frame.kind) {
            case Kind::Value:
                return start_value(state, byte);
            case Kind::Object:
                return object_step(state, byte);
            case Kind::Array:
                return array_step(state, byte);
            case Kind::String:
                return string_step(state, byte);
            case Kind::Number: {
                const Result result = number_step(frame, byte);
                if (result != Result::Ended) return result == Result::Continue;
                if (!finish_value(state)) return false;
                continue;  // the byte that ended the number belongs to the enclosing value
            }
            case Kind::Literal: {
                const Result result = literal_step(state, byte);
                if (result != Result::Ended) return result == Result::Continue;
                continue;
            }
        }
    }
    return false;  // the document is complete: nothing may follow
}

bool JsonGrammar::whitespace(State& state, uint8_t byte, bool allowed) const {
    if (!allowed || !is_space(byte) || state.whitespace >= kMaxWhitespace) return false;
    ++state.whitespace;
    return true;
}

bool JsonGrammar::start_value(State& state, uint8_t byte) const {
    Frame& frame = state.frames[state.depth - 1];
    if (is_space(byte)) return whitespace(state, byte, state.depth > 1);
    state.whitespace = 0;
    const SchemaNode& node = m_schema.node(frame.node);
    if (!node.literals.empty()) {
        frame.kind = Kind::Literal;
        frame.mask = ~uint64_t{0} >> (64 - node.literals.size());
        return literal_step(state, byte) == Result::Continue;
    }
    const uint8_t types = node.types;
    if (byte == '{' && (types & kJsonObject)) {
        frame.kind = Kind::Object;
        frame.phase = kOpen;
        frame.mask = 0;
        return true;
    }
    if (byte == '[' && (types & kJsonArray)) {
        frame.kind = Kind::Array;
        frame.phase = kOpen;
        return true;
    }
    if (byte == '"' && (types & kJsonString)) {
        frame.kind = Kind::String;
        frame.phase = kPlain;
        return true;
    }
    if ((byte == '-' || is_digit(byte)) && (types & (kJsonNumber | kJsonInteger))) {
        frame.kind = Kind::Number;
        frame.phase = byte == '-' ? kSign : byte == '0' ? kZero : kInteger;
        frame.length = byte == '-' ? 0 : 1;
        return true;
    }
    if (types & (kJsonBoolean | kJsonNull)) {
        frame.kind = Kind::Literal;
        frame.mask = ((types & kJsonBoolean) ? 3u : 0u) | ((types & kJsonNull) ? 4u : 0u);
        return literal_step(state, byte) == Result::Continue;
    }
    return false;
}

uint64_t JsonGrammar::missing_required(const Frame& object) const {
    return m_schema.node(object.node).required & ~object.mask;
}

bool JsonGrammar::start_key(State& state, uint8_t byte) const {
    Frame& object = state.frames[state.depth - 1];
    if (state.depth >= kMaxDepth) return false;
    const SchemaNode& node = m_schema.node(object.node);
    object.phase = kInKey;
    Frame key;
    key.node = object.node;
    key.is_key = 1;
    if (node.properties.empty()) {
        key.kind = Kind::String;
        key.phase = kPlain;
        state.frames[state.depth++] = key;
        return byte == '"';
    }
    const uint64_t all = ~uint64_t{0} >> (64 - node.properties.size());
    key.kind = Kind::Literal;
    key.mask = all & ~object.mask;
    state.frames[state.depth++] = key;
    return key.mask != 0 && literal_step(state, byte) == Result::Continue;
}

bool JsonGrammar::object_step(State& state, uint8_t byte) const {
    Frame& object = state.frames[state.depth - 1];
    const bool between = object.phase != kInKey && object.phase != kInValue;
    if (is_space(byte)) return whitespace(state, byte, between);
    state.whitespace = 0;
    const SchemaNode& node = m_schema.node(object.node);
    const bool keys_left = node.properties.empty() ||
                           std::popcount(object.mask) < static_cast<int>(node.properties.size());
    switch (object.phase) {
        case kOpen:
            if (byte == '}') return missing_required(object) == 0 && finish_value(state);
            return byte == '"' && start_key(state, byte);
        case kNext:
            return byte == '"' && start_key(state, byte);
        case kKeyDone: {
            if (byte != ':' || state.depth >= kMaxDepth) return false;
            object.phase = kInValue;
            const int value = node.properties.empty()
                                  ? m_schema.any()
                                  : node.properties[static_cast<size_t>(object.property)].second;
            push_value(state, value);
            return true;
        }
        case kValueDone:
            if (byte == '}') return missing_required(object) == 0 && finish_value(state);
            if (byte != ',' || !keys_left) return false;
            object.phase = kNext;
            return true;
        default:
            return false;
    }
}

bool JsonGrammar::array_step(State& state, uint8_t byte) const {
    Frame& array = state.frames[state.depth - 1];
    if (is_space(byte)) return whitespace(state, byte, true);
    state.whitespace = 0;
    if ((array.phase == kOpen || array.phase == kValueDone) && byte == ']') {
        return finish_value(state);
    }
    if (array.phase == kValueDone) {
        if (byte != ',') return false;
        array.phase = kNext;
        return true;
    }
    if (state.depth >= kMaxDepth) return false;
    const int items = m_schema.node(array.node).items;
    array.phase = kInValue;
    push_value(state, items >= 0 ? items : m_schema.any());
    return start_value(state, byte);
}

bool JsonGrammar::string_step(State& state, uint8_t byte) const {
    Frame& string = state.frames[state.depth - 1];
    switch (string.phase) {
        case kPlain:
            if (byte == '"') return finish_value(state);
            if (byte == '\\') {
                string.phase = kEscape;
                return true;
            }
            if (byte < 0x20) return false;
            if (byte < 0x80) return true;
            // A UTF-8 lead byte, and the range its first continuation byte must fall in
            // (excluding overlong forms, surrogates and code points past U+10FFFF).
            string.phase = kUtf8;
            if (byte >= 0xC2 && byte <= 0xDF) {
                string.pending = 1;
                string.length = byte_range(0x80, 0xBF);
            } else if (byte >= 0xE0 && byte <= 0xEF) {
                string.pending = 2;
                string.length = byte_range(byte == 0xE0 ? 0xA0 : 0x80, byte == 0xED ? 0x9F : 0xBF);
            } else if (byte >= 0xF0 && byte <= 0xF4) {
                string.pending = 3;
                string.length = byte_range(byte == 0xF0 ? 0x90 : 0x80, byte == 0xF4 ? 0x8F : 0xBF);
            } else {
                return false;
            }
            return true;
        case kEscape:
            if (byte == 'u') {
                string.phase = kUnicode;
                string.pending = 4;
                return true;
            }
            string.phase = kPlain;
            return std::string_view("\"\\/bfnrt").find(static_cast<char>(byte)) !=
                   std::string_view::npos;
        case kUnicode:
            // Surrogate escapes (\uD800-\uDFFF) are refused: a lone one breaks strict parsers,
            // and the character itself can always be written as UTF-8.
            if (!is_hex(byte) || (string.pending == 4 && (byte == 'd' || byte == 'D'))) {
                return false;
            }
            if (--string.pending == 0) string.phase = kPlain;
            return true;
        default: {  // kUtf8
            const uint8_t low = string.length & 0xFF, high = string.length >> 8;
            if (byte < low || byte > high) return false;
            string.length = byte_range(0x80, 0xBF);
            if (--string.pending == 0) string.phase = kPlain;
            return true;
        }
    }
}

JsonGrammar::Result JsonGrammar::number_step(Frame& number, uint8_t byte) const {
    const bool integer_only = !(m_schema.node(number.node).types & kJsonNumber);
    const auto digit = [&](uint8_t next_phase) {
        if (number.length >= kMaxNumberDigits) return Result::Reject;
        ++number.length;
        number.phase = next_phase;
        return Result::Continue;
    };
    // Two exponent digits at most, so every number fits a double (1e999 breaks strict parsers).
    const auto exponent_digit = [&] {
        if (number.pending >= kMaxExponentDigits) return Result::Reject;
        ++number.pending;
        number.phase = kExponent;
        return Result::Continue;
    };
    const auto to = [&](uint8_t next_phase) {
        number.phase = next_phase;
        return Result::Continue;
    };
    switch (number.phase) {
        case kSign:
            if (is_digit(byte)) return digit(byte == '0' ? kZero : kInteger);
            return Result::Reject;
        case kZero:
        case kInteger:
            if (is_digit(byte) && number.phase == kInteger) return digit(kInteger);
            if (is_digit(byte)) return Result::Reject;  // no leading zeros
            if (byte == '.' && !integer_only) return to(kDot);
            if ((byte == 'e' || byte == 'E') && !integer_only) return to(kExponentMark);
            return Result::Ended;
        case kDot:
            return is_digit(byte) ? digit(kFraction) : Result::Reject;
        case kFraction:
            if (is_digit(byte)) return digit(kFraction);
            if (byte == 'e' || byte == 'E') return to(kExponentMark);
            return Result::Ended;
        case kExponentMark:
            if (byte == '+' || byte == '-') return to(kExponentSign);
            return is_digit(byte) ? exponent_digit() : Result::Reject;
        case kExponentSign:
            return is_digit(byte) ? exponent_digit() : Result::Reject;
        default:  // kExponent
            return is_digit(byte) ? exponent_digit() : Result::Ended;
    }
}

std::string_view JsonGrammar::candidate(const Frame& frame, int index) const {
    const SchemaNode& node = m_schema.node(frame.node);
    if (frame.is_key) return node.properties[static_cast<size_t>(index)].first;
    if (!node.literals.empty()) return node.literals[static_cast<size_t>(index)];
    return kKeywords[index];
}

int JsonGrammar::candidate_count(const Frame& frame) const {
    const SchemaNode& node = m_schema.node(frame.node);
    if (frame.is_key) return static_cast<int>(node.properties.size());
    if (!node.literals.empty()) return static_cast<int>(node.literals.size());
    return 3;
}

bool JsonGrammar::literal_complete(const Frame& frame, int* which) const {
    for (int i = 0; i < candidate_count(frame); ++i) {
        if ((frame.mask >> i & 1) && candidate(frame, i).size() == frame.length) {
            if (which != nullptr) *which = i;
            return true;
        }
    }
    return false;
}

JsonGrammar::Result JsonGrammar::literal_step(State& state, uint8_t byte) const {
    Frame& literal = state.frames[state.depth - 1];
    uint64_t next = 0;
    bool longer = false;  // some surviving candidate goes on after this byte
    for (int i = 0; i < candidate_count(literal); ++i) {
        if (!(literal.mask >> i & 1)) continue;
        const auto text = candidate(literal, i);
        if (literal.length < text.size() && static_cast<uint8_t>(text[literal.length]) == byte) {
            next |= uint64_t{1} << i;
            longer |= text.size() > literal.length + 1u;
        }
    }
    if (next != 0) {
        literal.mask = next;
        ++literal.length;
        // Finished with nothing longer possible: close it now, so the document's state is exact.
        if (!longer && !finish_value(state)) return Result::Reject;
        return Result::Continue;
    }
    if (!literal_complete(literal)) return Result::Reject;
    return finish_value(state) ? Result::Ended : Result::Reject;
}

bool JsonGrammar::finish_value(State& state) const {
    const Frame done = state.frames[--state.depth];
    state.whitespace = 0;
    if (state.depth == 0) return true;
    Frame& parent = state.frames[state.depth - 1];
    if (parent.kind == Kind::Object && parent.phase == kInKey) {
        int property = -1;
        if (done.kind == Kind::Literal) literal_complete(done, &property);
        parent.property = static_cast<int16_t>(property);
        if (property >= 0) parent.mask |= uint64_t{1} << property;
        parent.phase = kKeyDone;
    } else {
        parent.phase = kValueDone;
    }
    return true;
}

bool JsonGrammar::can_end(const State& state) const {
    if (state.depth == 0) return true;
    if (state.depth > 1) return false;
    const Frame& frame = state.frames[0];
    if (frame.kind == Kind::Number) {
        return frame.phase == kZero || frame.phase == kInteger || frame.phase == kFraction ||
               frame.phase == kExponent;
    }
    return frame.kind == Kind::Literal && literal_complete(frame);
}

// Bytes that close an object from the state where its values so far are complete: the missing
// required properties (each with a comma, key, colon and shortest value) and the brace.
int JsonGrammar::close_cost(const Frame& object, uint64_t used) const {
    const SchemaNode& node = m_schema.node(object.node);
    int cost = 1;
    const uint64_t missing = node.required & ~used;
    for (size_t p = 0; p < node.properties.size(); ++p) {
        if (!(missing >> p & 1)) continue;
        cost += 1 + static_cast<int>(node.properties[p].first.size()) + 1 +
                m_schema.shortest(node.properties[p].second);
    }
    return cost;
}

int JsonGrammar::frame_cost(const Frame& frame) const {
    const SchemaNode& node = m_schema.node(frame.node);
    switch (frame.kind) {
        case Kind::Value:
            return m_schema.shortest(frame.node);
        case Kind::Number:
            return (frame.phase == kSign || frame.phase == kDot || frame.phase == kExponentMark ||
                    frame.phase == kExponentSign)
                       ? 1
                       : 0;
        case Kind::String: {
            const int owed = frame.phase == kPlain ? 0 : frame.phase == kEscape ? 1 : frame.pending;
            return owed + 1;  // and the closing quote
        }
        case Kind::Literal: {
            int best = std::numeric_limits<int>::max();
            for (int i = 0; i < candidate_count(frame); ++i) {
                if (frame.mask >> i & 1) {
                    best =
                        std::min(best, static_cast<int>(candidate(frame, i).size()) - frame.length);
                }
            }
            return best;
        }
        case Kind::Array:
            if (frame.phase == kNext) {
                return m_schema.shortest(node.items >= 0 ? node.items : m_schema.any()) + 1;
            }
            return 1;
        case Kind::Object:
            break;
    }
    switch (frame.phase) {
        case kOpen:
            return close_cost(frame, frame.mask) - (missing_required(frame) != 0 ? 1 : 0);
        case kInValue:
        case kValueDone:
            return close_cost(frame, frame.mask);
        case kKeyDone: {
            const int value = node.properties.empty()
                                  ? m_schema.any()
                                  : node.properties[static_cast<size_t>(frame.property)].second;
            return 1 + m_schema.shortest(value) + close_cost(frame, frame.mask);
        }
        default:  // kInKey, kNext: a whole property still to come
            break;
    }
    if (node.properties.empty()) return (frame.phase == kNext ? 2 : 0) + 1 + 1 + 1;
    if (missing_required(frame) != 0) return close_cost(frame, frame.mask) - 1;
    int best = std::numeric_limits<int>::max();
    for (size_t p = 0; p < node.properties.size(); ++p) {
        if (frame.mask >> p & 1) continue;
        const int key =
            frame.phase == kNext ? static_cast<int>(node.properties[p].first.size()) : 0;
        best = std::min(best, key + 1 + m_schema.shortest(node.properties[p].second));
    }
    return best + 1;
}

int JsonGrammar::distance(const State& state) const {
    int total = 0;
    for (int i = 0; i < state.depth; ++i) {
        const Frame& frame = state.frames[i];
        if (frame.kind == Kind::Object && frame.phase == kInKey && i + 1 < state.depth &&
            state.frames[i + 1].kind == Kind::Literal) {
            // The key being typed decides which value and which missing properties remain.
            return total + key_cost(frame, state.frames[i + 1]);
        }
        total += frame_cost(frame);
    }
    return total;
}

int JsonGrammar::key_cost(const Frame& object, const Frame& key) const {
    const SchemaNode& node = m_schema.node(object.node);
    int best = std::numeric_limits<int>::max();
    for (size_t p = 0; p < node.properties.size(); ++p) {
        if (!(key.mask >> p & 1)) continue;
        const int rest = static_cast<int>(node.properties[p].first.size()) - key.length;
        const uint64_t used = object.mask | uint64_t{1} << p;
        best = std::min(best, rest + 1 + m_schema.shortest(node.properties[p].second) +
                                  close_cost(object, used));
    }
    return best;
}

}  // namespace hearth
