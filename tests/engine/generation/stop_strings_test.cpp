#include "engine/generation/stop_strings.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

// Feeds `pieces` and returns what was shown, stopping at a stop string.
std::pair<std::string, bool> stream(StopStrings& stops, const std::vector<std::string>& pieces) {
    std::string shown;
    for (const auto& piece : pieces) {
        const auto out = stops.push(piece);
        shown += out.text;
        if (out.stopped) return {shown, true};
    }
    return {shown + stops.flush(), false};
}

TEST(StopStrings, AStopStringSplitAcrossPiecesNeverShows) {
    StopStrings stops({"</answer>"});
    EXPECT_EQ(stream(stops, {"The result", " is 4</", "ans", "wer> and more"}),
              std::make_pair(std::string("The result is 4"), true));
}

TEST(StopStrings, TextThatOnlyBeganAStopStringIsReleased) {
    StopStrings stops({"User:"});
    StopStrings::Output out = stops.push("Hello Us");
    EXPECT_EQ(out.text, "Hello ");  // "Us" might begin "User:"
    EXPECT_TRUE(stops.holding());
    out = stops.push("ually");
    EXPECT_EQ(out.text, "Usually");
    EXPECT_FALSE(out.stopped);
    EXPECT_FALSE(stops.holding());
}

TEST(StopStrings, TheEarliestOfSeveralStopStringsWins) {
    StopStrings stops({"world", "lo w", ""});
    EXPECT_EQ(stream(stops, {"hel", "lo wor", "ld"}), std::make_pair(std::string("hel"), true));
}

TEST(StopStrings, HeldTextIsReleasedWhenTheStreamEnds) {
    StopStrings stops({"###"});
    EXPECT_EQ(stream(stops, {"a #", "#"}), std::make_pair(std::string("a ##"), false));
}

TEST(StopStrings, WithoutStopStringsEverythingPassesAtOnce) {
    StopStrings stops({});
    const auto out = stops.push("anything");
    EXPECT_EQ(out.text, "anything");
    EXPECT_FALSE(stops.holding());
}

TEST(StopStrings, MultiByteCharactersAreNeverSplit) {
    StopStrings stops({"éx"});
    const auto out = stops.push("café");  // "é" might begin "éx": held whole
    EXPECT_EQ(out.text, "caf");
    EXPECT_EQ(stops.push("!").text, "é!");
}

}  // namespace
}  // namespace hearth
