// A byte-level recogniser for JSON documents that follow a JsonSchema: feed it bytes one at a
// time and it says whether each can continue a valid document. The state is a small fixed-size
// value, so trying a token means copying it and feeding the token's bytes. It also knows the
// fewest bytes that would complete the document, which lets the decode loop close a document
// before the token budget runs out.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "engine/grammar/json_schema.h"

namespace hearth {

class JsonGrammar final {
public:
    static constexpr int kMaxDepth = 20;      // nesting deeper than this is refused
    static constexpr int kMaxWhitespace = 8;  // consecutive whitespace bytes between tokens
    static constexpr int kMaxNumberDigits = 16;
    static constexpr int kMaxExponentDigits = 2;

    enum class Kind : uint8_t { Value, Object, Array, String, Number, Literal };
    struct Frame {
        Kind kind = Kind::Value;
        uint8_t phase = 0;
        uint8_t pending = 0;    // string: bytes still owed to an escape or a UTF-8 character
        uint8_t is_key = 0;     // string or literal: an object key
        int16_t node = 0;       // schema node
        int16_t property = -1;  // object: the property whose value is being read
        uint16_t length = 0;    // literal: bytes matched; number: digits; string: next-byte range
        uint64_t mask = 0;      // object: properties used; literal: candidates still possible
    };
    struct State {
        std::array<Frame, kMaxDepth> frames{};
        uint8_t depth = 0;
        uint8_t whitespace = 0;
    };

    explicit JsonGrammar(JsonSchema schema);

    State start() const;
    // False when `byte` cannot continue a valid document; `state` is then unspecified.
    bool advance(State& state, uint8_t byte) const;
    bool advance(State& state, std::string_view bytes) const;
    // The bytes so far form a whole document.
    bool can_end(const State& state) const;
    // A whole document to which nothing more may be added.
    bool finished(const State& state) const { return state.depth == 0; }
    // The fewest bytes that complete the document from here.
    int distance(const State& state) const;

    const JsonSchema& schema() const { return m_schema; }

private:
    enum class Result { Continue, Ended, Reject };

    bool start_value(State& state, uint8_t byte) const;
    bool object_step(State& state, uint8_t byte) const;
    bool array_step(State& state, uint8_t byte) const;
    bool string_step(State& state, uint8_t byte) const;
    Result number_step(Frame& frame, uint8_t byte) const;
    Result literal_step(State& state, uint8_t byte) const;
    bool start_key(State& state, uint8_t byte) const;
    void push_value(State& state, int node) const;
    bool finish_value(State& state) const;
    bool whitespace(State& state, uint8_t byte, bool allowed) const;

    std::string_view candidate(const Frame& frame, int index) const;
    int candidate_count(const Frame& frame) const;
    bool literal_complete(const Frame& frame, int* which = nullptr) const;
    uint64_t missing_required(const Frame& object) const;
    int close_cost(const Frame& object, uint64_t used) const;
    int frame_cost(const Frame& frame) const;
    // An object whose key is being typed, with that key: the rest of the key, the colon, the
    // shortest value and what closing the object then takes, for the best remaining key.
    int key_cost(const Frame& object, const Frame& key) const;

    JsonSchema m_schema;
};

}  // namespace hearth
