// Server-sent events framing, and the real servers' streams read back whatever way TCP splits
// them: byte by byte and at random cut points.
#include "engine/remote/sse_reader.h"

#include <gtest/gtest.h>

#include <random>

#include "engine/remote/completion_events.h"
#include "tests/engine/remote/server_streams.h"

namespace hearth::remote {
namespace {

std::vector<SseEvent> read_all(const std::vector<std::string_view>& pieces) {
    SseReader reader;
    std::vector<SseEvent> events;
    for (const std::string_view piece : pieces) {
        for (SseEvent& event : reader.feed(piece)) events.push_back(std::move(event));
    }
    EXPECT_FALSE(reader.has_partial_event());
    return events;
}

TEST(SseReader, LineEndsOfEveryKindEndEvents) {
    for (const std::string_view end : {"\n", "\r\n", "\r"}) {
        const std::string stream = "data: a" + std::string(end) + std::string(end) + "data: b" +
                                   std::string(end) + std::string(end);
        const auto events = read_all({stream});
        ASSERT_EQ(events.size(), 2u);
        EXPECT_EQ(events[0].data, "a");
        EXPECT_EQ(events[1].data, "b");
    }
}

TEST(SseReader, ACarriageReturnAndItsLineFeedInDifferentReadsAreOneLineEnd) {
    const auto events = read_all({"data: a\r", "\ndata: b\r", "\n\r", "\n"});
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].data, "a\nb");  // two data lines of one event
}

TEST(SseReader, CommentsFieldsWithoutSpaceAndUnknownFields) {
    const auto events =
        read_all({": keep-alive\n\ndata:x\nid: 7\nretry: 10\nfoo: bar\n"
                  "event: error\n\n"});
    ASSERT_EQ(events.size(), 1u);  // the comment-only block is no event
    EXPECT_EQ(events[0].data, "x");
    EXPECT_EQ(events[0].type, "error");
}

TEST(SseReader, AnEventWithoutTheBlankLineIsPartial) {
    SseReader reader;
    EXPECT_TRUE(reader.feed("data: {\"a\":1}\n").empty());
    EXPECT_TRUE(reader.has_partial_event());
    EXPECT_EQ(reader.feed("\n").size(), 1u);
    EXPECT_FALSE(reader.has_partial_event());
}

TEST(SseReader, ALineWithoutEndIsRefusedBeforeItFillsMemory) {
    SseReader reader;
    const std::string megabyte(1 << 20, 'x');
    EXPECT_THROW(
        {
            for (int i = 0; i < 20; ++i) reader.feed(megabyte);
        },
        std::length_error);
}

// What a client takes from a stream split into `pieces`.
struct Read {
    std::string content, reasoning, finish_reason;
    std::optional<Usage> usage;
    int content_events = 0;
    bool done = false;
};

Read read_stream(const std::vector<std::string_view>& pieces) {
    Read read;
    for (const SseEvent& event : read_all(pieces)) {
        const CompletionDelta delta = parse_chunk(event.data);
        read.content += delta.content;
        read.reasoning += delta.reasoning;
        if (delta.finish_reason) read.finish_reason = *delta.finish_reason;
        if (delta.usage) read.usage = delta.usage;
        if (!delta.content.empty() || !delta.reasoning.empty()) ++read.content_events;
        read.done = read.done || delta.done;
    }
    return read;
}

void expect_read(const Read& read, const test::ServerStream& stream) {
    EXPECT_EQ(read.content, stream.content);
    EXPECT_EQ(read.reasoning, stream.reasoning);
    EXPECT_EQ(read.finish_reason, stream.finish_reason);
    ASSERT_TRUE(read.usage);
    EXPECT_EQ(read.usage->prompt_tokens, stream.prompt_tokens);
    EXPECT_EQ(read.usage->completion_tokens, stream.completion_tokens);
    EXPECT_EQ(read.usage->cached_tokens, stream.cached_tokens);
    EXPECT_EQ(read.content_events, stream.content_events);
    EXPECT_TRUE(read.done);
}

TEST(ServerStreams, EachServersStreamReadsTheSameWholeAndByteByByte) {
    for (const test::ServerStream& stream : test::server_streams()) {
        SCOPED_TRACE(stream.server);
        expect_read(read_stream({stream.bytes}), stream);
        std::vector<std::string_view> bytes;
        for (size_t i = 0; i < stream.bytes.size(); ++i) {
            bytes.push_back(std::string_view(stream.bytes).substr(i, 1));
        }
        expect_read(read_stream(bytes), stream);
    }
}

TEST(ServerStreams, EachServersStreamReadsTheSameAtRandomCuts) {
    std::mt19937 random(2026);
    for (const test::ServerStream& stream : test::server_streams()) {
        SCOPED_TRACE(stream.server);
        const std::string_view bytes = stream.bytes;
        for (int trial = 0; trial < 200; ++trial) {
            std::vector<std::string_view> pieces;
            for (size_t start = 0; start < bytes.size();) {
                const size_t size = std::uniform_int_distribution<size_t>(1, 64)(random);
                pieces.push_back(bytes.substr(start, size));
                start += size;
            }
            expect_read(read_stream(pieces), stream);
        }
    }
}

}  // namespace
}  // namespace hearth::remote
