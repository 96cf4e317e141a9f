#include "engine/runtime/backend_preference.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

namespace hearth {
namespace {

using Kind = BackendPreference::Kind;

TEST(BackendPreference, ParsesEveryWordAndWritesItBack) {
    for (const char* word : {"auto", "cpu", "reference", "vulkan", "vulkan:0", "vulkan:12"})
        EXPECT_EQ(to_string(parse_backend_preference(word)), word);
    EXPECT_EQ(parse_backend_preference("vulkan:3").device, 3u);
    EXPECT_EQ(parse_backend_preference("vulkan").device, std::nullopt);
    EXPECT_EQ(parse_backend_preference("auto").kind, Kind::Automatic);
}

TEST(BackendPreference, RefusesUnknownWordsNamingTheChoices) {
    for (const char* word : {"", "gpu", "vulkan:", "vulkan:x", "vulkan:-1", "vulkan:1x", "CPU"}) {
        try {
            parse_backend_preference(word);
            FAIL() << word;
        } catch (const std::invalid_argument& error) {
            EXPECT_NE(std::string(error.what()).find("auto, cpu, vulkan, vulkan:N or reference"),
                      std::string::npos);
        }
    }
}

TEST(BackendPreference, AStoredSettingThatNamesNoBackendRunsTheCpuAndSaysSo) {
    const auto preference = backend_preference_from_setting("metal");
    EXPECT_EQ(preference.kind, Kind::Cpu);
    EXPECT_EQ(preference.unknown_setting, "metal");
    EXPECT_EQ(backend_preference_from_setting("vulkan:1").unknown_setting, "");
}

TEST(BackendPreference, AutomaticThreadsLeaveTheSpareCoresFree) {
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    EXPECT_EQ(BackendPreference{}.cpu_threads(), cores);
    const BackendPreference one_spare{.spare_threads = 1};
    EXPECT_EQ(one_spare.cpu_threads(), std::max(1, cores - 1));
    const BackendPreference all_spare{.spare_threads = 1000};
    EXPECT_EQ(all_spare.cpu_threads(), 1);
    const BackendPreference three{.threads = 3, .spare_threads = 1};
    EXPECT_EQ(three.cpu_threads(), 3);
}

}  // namespace
}  // namespace hearth
