#include "engine/format/gguf_value.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace hearth {
namespace {

// Every scalar type comes back as the value it went in as, with the conversions a single
// value of that type allows.
TEST(GgufArray, ScalarsKeepTheirTypesAndConversions) {
    GgufArray big(GgufValueType::UInt64);
    big.push_back(GgufValue(uint64_t{7}));
    big.push_back(GgufValue(std::numeric_limits<uint64_t>::max()));
    EXPECT_EQ(big.size(), 2u);
    EXPECT_EQ(big.integer_at(0), 7);
    EXPECT_EQ(big.integer_at(1), std::nullopt);  // past int64, as GgufValue::as_integer says
    EXPECT_EQ(big.value_at(1).type(), GgufValueType::UInt64);

    GgufArray small(GgufValueType::Int16, {GgufValue(int16_t{-300}), GgufValue(int16_t{12})});
    EXPECT_EQ(small.integer_at(0), -300);
    EXPECT_EQ(small.number_at(1), 12.0);

    GgufArray floats(GgufValueType::Float64, {GgufValue(0.125), GgufValue(-2.5)});
    EXPECT_EQ(floats.number_at(1), -2.5);
    EXPECT_EQ(floats.integer_at(1), std::nullopt);

    GgufArray flags(GgufValueType::Bool, {GgufValue(true), GgufValue(false)});
    EXPECT_EQ(flags.value_at(0).as_bool(), true);
    EXPECT_EQ(flags.value_at(1).as_bool(), false);
    EXPECT_EQ(flags.integer_at(0), std::nullopt);
    EXPECT_EQ(flags.number_at(0), std::nullopt);
}

TEST(GgufArray, StringsAreReadAndReplacedInPlace) {
    GgufArray texts(GgufValueType::String);
    for (const char* text : {"alpha", "", "a much longer string than fifteen bytes", "z"})
        texts.push_back(text);
    ASSERT_EQ(texts.size(), 4u);
    EXPECT_EQ(texts.string_at(1), "");
    EXPECT_EQ(texts.integer_at(0), std::nullopt);
    EXPECT_EQ(texts.number_at(0), std::nullopt);

    texts.set(0, GgufValue(std::string("a")));
    texts.set(1, GgufValue(std::string("filled")));
    texts.set(2, GgufValue(std::string()));
    EXPECT_EQ(texts.string_at(0), "a");
    EXPECT_EQ(texts.string_at(1), "filled");
    EXPECT_EQ(texts.string_at(2), "");
    EXPECT_EQ(texts.string_at(3), "z");
    EXPECT_EQ(*texts.value_at(3).as_string(), "z");
}

TEST(GgufArray, ArraysNest) {
    GgufArray inner(GgufValueType::Int32, {GgufValue(int32_t{1}), GgufValue(int32_t{2})});
    GgufArray outer(GgufValueType::Array);
    outer.push_back(inner);
    outer.push_back(GgufValue(GgufArray(GgufValueType::String)));
    ASSERT_EQ(outer.size(), 2u);
    EXPECT_EQ(outer.array_at(0).integer_at(1), 2);
    EXPECT_EQ(outer.array_at(1).element_type(), GgufValueType::String);
    EXPECT_TRUE(outer.array_at(1).empty());
    outer.set(1, GgufValue(inner));
    EXPECT_EQ(outer.array_at(1).integer_at(0), 1);
    EXPECT_EQ(outer.integer_at(0), std::nullopt);
}

// An element of another type or past the end is refused, not stored or read as garbage.
TEST(GgufArray, WrongTypesAndIndicesAreRefused) {
    GgufArray kinds(GgufValueType::Int32, {GgufValue(int32_t{3})});
    EXPECT_THROW(kinds.push_back(GgufValue(uint32_t{3})), std::invalid_argument);
    EXPECT_THROW(kinds.push_back("text"), std::invalid_argument);
    EXPECT_THROW(kinds.set(0, GgufValue(1.0f)), std::invalid_argument);
    EXPECT_THROW(kinds.set(1, GgufValue(int32_t{1})), std::out_of_range);
    EXPECT_THROW(kinds.string_at(0), std::invalid_argument);
    EXPECT_THROW(kinds.array_at(0), std::invalid_argument);
    EXPECT_THROW(kinds.integer_at(1), std::out_of_range);
    EXPECT_THROW(kinds.value_at(1), std::out_of_range);
    EXPECT_EQ(kinds.size(), 1u);
    EXPECT_EQ(kinds.integer_at(0), 3);

    GgufArray texts(GgufValueType::String, {GgufValue(std::string("a"))});
    EXPECT_THROW(texts.string_at(1), std::out_of_range);
    EXPECT_THROW(texts.push_back(GgufArray(GgufValueType::String)), std::invalid_argument);
}

}  // namespace
}  // namespace hearth
