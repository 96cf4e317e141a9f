#include "app/cli_options.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

TEST(CliOptions, ParsesEveryOption) {
    const auto options = parse_cli_options(
        {"-m",      "x.gguf", "-p",      "Hello", "-n",      "12",  "--temp",           "0.5",
         "--top-k", "7",      "--top-p", "0.9",   "--min-p", "0.1", "--repeat-penalty", "1.1",
         "--seed",  "99",     "--ctx",   "256"});
    EXPECT_EQ(options.model_path, "x.gguf");
    EXPECT_EQ(options.prompt, "Hello");
    EXPECT_EQ(options.max_tokens, 12);
    EXPECT_EQ(options.sampler.temperature, 0.5f);
    EXPECT_EQ(options.sampler.top_k, 7);
    EXPECT_EQ(options.sampler.top_p, 0.9f);
    EXPECT_EQ(options.sampler.min_p, 0.1f);
    EXPECT_EQ(options.sampler.repeat_penalty, 1.1f);
    EXPECT_EQ(options.sampler.seed, 99u);
    EXPECT_TRUE(options.seed_given);
    EXPECT_EQ(options.context_length, 256);
}

TEST(CliOptions, ParsesTheBackendAndDevice) {
    const auto options = parse_cli_options({"-p", "x", "--backend", "vulkan", "--device", "2"});
    EXPECT_EQ(options.backend, "vulkan");
    EXPECT_EQ(options.device, 2u);
    EXPECT_EQ(parse_cli_options({"--list-devices"}).mode, CliMode::ListDevices);
    EXPECT_EQ(parse_cli_options({"-p", "x"}).backend, "auto");  // a GPU that passes, else the CPU
    EXPECT_EQ(parse_cli_options({"-p", "x", "--backend", "vulkan:1"}).backend, "vulkan:1");
    EXPECT_THROW(parse_cli_options({"-p", "x", "--backend", "gpu"}), std::invalid_argument);
    EXPECT_THROW(parse_cli_options({"-p", "x", "--device", "2"}), std::invalid_argument);
    EXPECT_THROW(parse_cli_options({"-p", "x", "--backend", "vulkan", "--device", "-1"}),
                 std::invalid_argument);
}

TEST(CliOptions, ParsesTheKvCacheType) {
    EXPECT_EQ(parse_cli_options({"-p", "x"}).kv_cache, KvCacheType::F16);
    EXPECT_EQ(parse_cli_options({"-p", "x", "--kv-type", "q8_0"}).kv_cache, KvCacheType::Q8_0);
    EXPECT_EQ(parse_cli_options({"-p", "x", "--kv-type", "f16"}).kv_cache, KvCacheType::F16);
    EXPECT_THROW(parse_cli_options({"-p", "x", "--kv-type", "q4_0"}), std::invalid_argument);
    EXPECT_THROW(parse_cli_options({"-p", "x", "--kv-type"}), std::invalid_argument);
}

TEST(CliOptions, ParsesPromptIdsAndDumpMode) {
    const auto options = parse_cli_options({"--prompt-ids", "1,72,9", "--dump-logits", "5"});
    EXPECT_EQ(options.prompt_ids, (std::vector<int32_t>{1, 72, 9}));
    EXPECT_EQ(options.dump_logits, 5);
    EXPECT_FALSE(options.max_tokens.has_value());
}

TEST(CliOptions, ParsesTheTokenizerAndTemplateModes) {
    auto options = parse_cli_options({"--tokenize", "--add-special", "--parse-special"});
    EXPECT_EQ(options.mode, CliMode::Tokenize);
    EXPECT_TRUE(options.add_special && options.parse_special);
    options = parse_cli_options({"--render-template", "--template-file", "t.jinja", "--messages",
                                 "m.json", "--add-generation-prompt", "--bos-token", "<s>",
                                 "--vars", "v.json", "--now", "2026-11-22T09:30:00"});
    EXPECT_EQ(options.mode, CliMode::RenderTemplate);
    EXPECT_EQ(options.template_file, "t.jinja");
    EXPECT_EQ(options.messages_file, "m.json");
    EXPECT_EQ(options.bos_token, "<s>");
    EXPECT_FALSE(options.eos_token.has_value());
    EXPECT_TRUE(options.add_generation_prompt);
    options = parse_cli_options({"--chat", "-p", "Hi", "--system", "Be kind."});
    EXPECT_EQ(options.mode, CliMode::Chat);
    EXPECT_EQ(options.system_prompt, "Be kind.");
    EXPECT_FALSE(options.enable_thinking.has_value());
    EXPECT_EQ(parse_cli_options({"--chat", "-p", "Hi", "--think", "off"}).enable_thinking, false);
    EXPECT_EQ(parse_cli_options({"--think", "on", "--render-template", "--messages", "m.json"})
                  .enable_thinking,
              true);
    options = parse_cli_options({"--render-template", "--messages", "m.json", "--tools", "t.json",
                                 "--reasoning-effort", "high"});
    EXPECT_EQ(options.tools_file, "t.json");
    EXPECT_EQ(options.reasoning_effort, "high");
    EXPECT_FALSE(parse_cli_options({"--chat", "-p", "Hi"}).reasoning_effort.has_value());
}

TEST(CliOptions, RefusesBadInputWithAMessageNamingIt) {
    const auto message = [](std::vector<std::string> arguments) -> std::string {
        try {
            parse_cli_options(arguments);
        } catch (const std::invalid_argument& error) {
            return error.what();
        }
        return "";
    };
    EXPECT_EQ(message({"-p", "x", "-n", "ten"}), "option -n expects a number, got 'ten'");
    EXPECT_EQ(message({"-p", "x", "--frobnicate"}), "unknown option '--frobnicate'");
    EXPECT_EQ(message({"-p"}), "option -p needs a value");
    EXPECT_EQ(message({"-n", "3"}), "no prompt: give -p PROMPT or --prompt-ids");
    EXPECT_EQ(message({"--prompt-ids", "1,,2"}), "option --prompt-ids expects a number, got ''");
    EXPECT_EQ(message({"--render-template"}), "--render-template needs --messages MESSAGES.json");
    EXPECT_EQ(message({"--dump-logits", "3", "-p", "x"}), "--dump-logits needs --prompt-ids");
    EXPECT_EQ(message({"--chat", "-p", "x", "--think", "no"}),
              "option --think expects on or off, got 'no'");
    EXPECT_EQ(message({"-p", "x", "--think", "off"}), "--think needs --chat or --render-template");
    EXPECT_EQ(message({"--chat", "-p", "x", "--reasoning-effort", "extreme"}),
              "option --reasoning-effort expects low, medium or high, got 'extreme'");
    EXPECT_EQ(message({"-p", "x", "--reasoning-effort", "low"}),
              "--reasoning-effort needs --chat or --render-template");
    EXPECT_EQ(message({"--chat", "-p", "x", "--tools", "t.json"}),
              "--tools needs --render-template");
    EXPECT_TRUE(parse_cli_options({"--help"}).help);
    EXPECT_TRUE(parse_cli_options({"--version"}).version);  // needs no prompt
}

}  // namespace
}  // namespace hearth
