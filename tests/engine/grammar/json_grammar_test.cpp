#include "engine/grammar/json_grammar.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

// Whether `text` is a whole document, and whether every prefix of it was accepted.
struct Verdict {
    bool prefix_ok;
    bool complete;
};

Verdict check(const JsonGrammar& grammar, std::string_view text) {
    auto state = grammar.start();
    for (const char byte : text) {
        if (!grammar.advance(state, static_cast<uint8_t>(byte))) return {false, false};
    }
    return {true, grammar.can_end(state)};
}

bool valid(const JsonGrammar& grammar, std::string_view text) {
    const auto verdict = check(grammar, text);
    return verdict.prefix_ok && verdict.complete;
}

TEST(JsonGrammar, AcceptsJsonObjects) {
    const JsonGrammar grammar(JsonSchema::any_object());
    for (const char* text : {
             R"({})",
             R"({"a":1})",
             R"({ "a" : [1, -2.5e+3, 0, true, false, null, "x\n\u00e9"], "b": {"c": {}} })",
             "{\"caf\xc3\xa9\": \"\xe2\x82\xac \xf0\x9f\x98\x80\"}",
             R"({"":""})",
             R"({"a":[[],[[]],{}]})",
         }) {
        EXPECT_TRUE(valid(grammar, text)) << text;
    }
}

TEST(JsonGrammar, RefusesWhatIsNotJson) {
    const JsonGrammar grammar(JsonSchema::any_object());
    for (const char* text : {
             R"([1])",       // JSON mode without a schema means an object
             R"( {})",       // nothing before the document
             R"({} )",       // nor after it
             R"({"a":01})",  // leading zero
             R"({"a":1.})",  // fraction without digits
             R"({"a":.5})",
             R"({"a":-})",
             R"({"a":tru})",
             R"({"a":True})",
             R"({"a" 1})",
             R"({"a":1,})",
             R"({,})",
             R"({'a':1})",
             R"({"a":"\x"})",
             R"({"a":"\uD800"})",         // lone surrogate escapes are refused
             "{\"a\":\"\x01\"}",          // raw control character
             "{\"a\":\"\xc3\x28\"}",      // broken UTF-8
             "{\"a\":\"\xed\xa0\x80\"}",  // UTF-8 surrogate
             "{\"a\":\"\xc0\xaf\"}",      // overlong
             R"({"a":1}})",
             R"({"a":[1 2]})",
         }) {
        EXPECT_FALSE(valid(grammar, text)) << text;
    }
    EXPECT_FALSE(check(grammar, R"({"a":1)").complete);
    EXPECT_TRUE(check(grammar, R"({"a":1)").prefix_ok);
}

TEST(JsonGrammar, LimitsNestingDepthAndRunsOfWhitespace) {
    const JsonGrammar grammar(JsonSchema::any_object());
    std::string deep = "{\"a\":";
    for (int i = 0; i < JsonGrammar::kMaxDepth; ++i) deep += "[";
    EXPECT_FALSE(check(grammar, deep).prefix_ok);
    EXPECT_TRUE(valid(grammar, "{\n       \"a\": 1}"));                   // 8 whitespace bytes
    EXPECT_FALSE(check(grammar, "{\n        \"a\"").prefix_ok);           // 9
    EXPECT_FALSE(check(grammar, R"({"a":12345678901234567)").prefix_ok);  // 17 digits
    EXPECT_TRUE(valid(grammar, R"({"a":1e-99})"));
    EXPECT_FALSE(check(grammar, R"({"a":1E320)").prefix_ok);  // past any double
}

TEST(JsonGrammar, FollowsASchema) {
    const JsonGrammar grammar(JsonSchema::parse(R"({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer"},
            "mood": {"enum": ["happy", "sad", 3]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "pet": {"type": ["object", "null"], "properties": {"kind": {"const": "cat"}},
                    "required": ["kind"]}
        },
        "required": ["name", "age"]
    })"));
    EXPECT_TRUE(valid(grammar, R"({"name":"Lily","age":5})"));
    EXPECT_TRUE(valid(grammar, R"({"age":5,"name":"Lily","mood":"sad","tags":["a","b"]})"));
    EXPECT_TRUE(valid(grammar, R"({"name":"x","age":-1,"mood":3,"pet":{"kind":"cat"}})"));
    EXPECT_TRUE(valid(grammar, R"({"name":"x","age":0,"pet":null})"));
    EXPECT_FALSE(valid(grammar, R"({"name":"Lily"})"));            // age is required
    EXPECT_FALSE(valid(grammar, R"({"name":"Lily","age":5.5})"));  // an integer
    EXPECT_FALSE(valid(grammar, R"({"name":"Lily","age":5,"mood":"angry"})"));
    EXPECT_FALSE(valid(grammar, R"({"name":"Lily","age":5,"color":"red"})"));  // unknown key
    EXPECT_FALSE(valid(grammar, R"({"name":"Lily","name":"Tom","age":5})"));   // repeated key
    EXPECT_FALSE(valid(grammar, R"({"name":"x","age":1,"tags":[1]})"));
    EXPECT_FALSE(valid(grammar, R"({"name":"x","age":1,"pet":{}})"));  // kind is required
    EXPECT_FALSE(valid(grammar, R"({"name":"x","age":1,"pet":{"kind":"dog"}})"));
}

TEST(JsonGrammar, TopLevelScalarsEndOnlyWhenComplete) {
    const JsonGrammar number(JsonSchema::parse(R"({"type": "number"})"));
    EXPECT_TRUE(valid(number, "-12.5e3"));
    EXPECT_FALSE(valid(number, "-12.5e"));
    const JsonGrammar choice(JsonSchema::parse(R"({"enum": [1, 12, "a"]})"));
    EXPECT_TRUE(valid(choice, "1"));
    EXPECT_TRUE(valid(choice, "12"));
    EXPECT_TRUE(valid(choice, "\"a\""));
    EXPECT_FALSE(valid(choice, "2"));
    auto state = choice.start();
    ASSERT_TRUE(choice.advance(state, "\"a\""));
    EXPECT_TRUE(choice.finished(state));  // nothing can follow
}

TEST(JsonGrammar, DistanceIsTheShortestCompletion) {
    const JsonGrammar grammar(JsonSchema::any_object());
    const auto distance = [&](std::string_view text) {
        auto state = grammar.start();
        EXPECT_TRUE(grammar.advance(state, text)) << text;
        return grammar.distance(state);
    };
    EXPECT_EQ(distance(""), 2);                  // {}
    EXPECT_EQ(distance("{"), 1);                 // }
    EXPECT_EQ(distance(R"({"ab)"), 4);           // ":0}
    EXPECT_EQ(distance(R"({"a":)"), 2);          // 0}
    EXPECT_EQ(distance(R"({"a":[1,)"), 3);       // 0]}
    EXPECT_EQ(distance(R"({"a":"x\u00)"), 4);    // 00"}
    EXPECT_EQ(distance(R"({"a":t)"), 4);         // rue}
    EXPECT_EQ(distance(R"({"a":{"b":1},)"), 5);  // "":0}
    EXPECT_EQ(distance(R"({"a":{"b":-)"), 3);    // 0}}

    const JsonGrammar schema(JsonSchema::parse(
        R"({"properties": {"name": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["name", "n"]})"));
    auto state = schema.start();
    EXPECT_EQ(schema.distance(state), static_cast<int>(std::string(R"({"name":"","n":0})").size()));
    ASSERT_TRUE(schema.advance(state, R"({"na)"));
    EXPECT_EQ(schema.distance(state), static_cast<int>(std::string(R"(me":"","n":0})").size()));
    ASSERT_TRUE(schema.advance(state, R"(me":"x")"));
    EXPECT_EQ(schema.distance(state), static_cast<int>(std::string(R"(,"n":0})").size()));
    ASSERT_TRUE(schema.advance(state, R"(,")"));
    EXPECT_EQ(schema.distance(state), static_cast<int>(std::string(R"(n":0})").size()));
}

TEST(JsonSchema, RefusesWhatItDoesNotUnderstand) {
    EXPECT_THROW(JsonSchema::parse(R"({"type": "object", "pattern": "a+"})"), SchemaError);
    EXPECT_THROW(JsonSchema::parse(R"({"type": "strange"})"), SchemaError);
    EXPECT_THROW(JsonSchema::parse(R"({"required": ["x"]})"), SchemaError);
    EXPECT_THROW(JsonSchema::parse(R"({"enum": []})"), SchemaError);
    EXPECT_THROW(JsonSchema::parse(R"([1, 2])"), SchemaError);
    EXPECT_THROW(JsonSchema::parse(R"({"type": )"), SchemaError);
    try {
        JsonSchema::parse(R"({"properties": {"a": {"minLength": 3}}})");
        FAIL();
    } catch (const SchemaError& error) {
        EXPECT_STREQ(error.what(),
                     "schema root.a uses \"minLength\", which JSON mode does not support");
    }
}

}  // namespace
}  // namespace hearth
