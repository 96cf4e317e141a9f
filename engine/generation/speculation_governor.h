// Whether verifying drafts pays, measured while the answer is produced. A verify pass costs
// more than a plain step (more rows, the drafting itself), and what it buys depends on how
// often the drafts are right and on how the machine prices extra rows: on a tiny model, where a
// step is mostly overhead, prompt-lookup drafts cost more than they save. So the decode loop
// times both: seconds per token of plain decoding and of draft-verify passes (drafting
// included). Rule: while verifying is slower than plain decoding (each a moving average over
// recent work), drafting pauses for a cooldown of tokens decoded plainly, which doubles each
// time drafting fails again (up to a limit) and starts over once it pays. Plain decoding is
// probed now and then when drafts never let it run, so the comparison always has both sides.
// Greedy output is the same either way: this changes speed only.
#pragma once

namespace hearth {

class SpeculationGovernor {
public:
    static constexpr int kFirstCooldown = 16;      // tokens decoded plainly after a loss
    static constexpr int kLongestCooldown = 1024;  // however often drafting has lost
    static constexpr int kPassesToJudge = 4;       // verify passes before drafting is judged
    static constexpr int kProbeTokens = 4;         // a plain probe when drafts left no gap
    static constexpr double kMargin = 1.05;        // verifying must lose by 5% to pause

    // Whether the loop should try drafts now.
    bool drafting() const { return m_paused_tokens == 0; }
    // How many tokens plain decoding should run before asking again (0: as many as it likes,
    // until a draft appears).
    int plain_budget() const { return m_paused_tokens; }

    // `tokens` decoded plainly in `seconds`.
    void decoded_plainly(int tokens, double seconds);
    // A verify pass (drafting included) that emitted `tokens` in `seconds`.
    void verified(int tokens, double seconds);

private:
    void judge();

    double m_plain_seconds_per_token = 0.0;  // moving averages; 0: not measured yet
    double m_verify_seconds_per_token = 0.0;
    int m_passes = 0;  // verify passes since drafting last (re)started
    int m_paused_tokens = 0;
    int m_cooldown = kFirstCooldown;
};

}  // namespace hearth
