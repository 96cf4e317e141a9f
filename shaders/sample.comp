// Sampling on the device, the CPU sampler's distribution: truncation by top-k, then top-p and
// min-p on the untempered probabilities of the survivors, then a draw at the temperature by the
// Gumbel-max trick: argmax(logit / T + G), G standard Gumbel, picks token i with probability
// softmax(logits / T)_i. The noise is a counter-based hash of (seed, step, token), so a chain of
// decode steps carries no generator state and a seed reproduces its tokens. One workgroup per
// draw: draw w uses step `step + w` and writes ring slot `slot + w`.
//
// top_k 0 (off) takes min-p over the whole vocabulary but not top-p, which needs a sort: the
// backend leaves that combination to the CPU.
#version 450

#define LANES 256
#define MAX_TOP_K 64

layout(local_size_x = LANES) in;

layout(std430, binding = 0) readonly buffer Logits {
    float logits[];
};
layout(std430, binding = 1) buffer Tokens {
    uint tokens[];
};

layout(push_constant) uniform Settings {
    uint count;  // vocabulary size
    float temperature;
    uint top_k;  // 0 or 1 .. MAX_TOP_K
    float top_p;
    float min_p;
    uint seed_low;
    uint seed_high;
    uint step;
    uint slot;
    uint ring;
}
settings;

shared float best_value[LANES];
shared uint best_index[LANES];
shared float candidate_value[MAX_TOP_K];
shared uint candidate_index[MAX_TOP_K];
shared uint candidates;

// PCG's output permutation over a 32-bit state: a well-mixed hash of its input.
uint pcg_hash(uint value) {
    uint state = value * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

float gumbel(uint step, uint index) {
    const uint h =
        pcg_hash(pcg_hash(pcg_hash(settings.seed_low ^ step) ^ settings.seed_high) ^ index);
    const float uniform_open = (float(h >> 8) + 0.5) / 16777216.0;  // (0, 1), 24 bits
    return -log(-log(uniform_open));
}

// Leaves the workgroup's best (value, index) in best_value[0] / best_index[0]: the highest
// value, the lowest index among equals.
void reduce_best(float value, uint index) {
    const uint lane = gl_LocalInvocationID.x;
    best_value[lane] = value;
    best_index[lane] = index;
    barrier();
    for (uint width = LANES / 2; width > 0; width >>= 1) {
        if (lane < width && (best_value[lane + width] > best_value[lane] ||
                             (best_value[lane + width] == best_value[lane] &&
                              best_index[lane + width] < best_index[lane]))) {
            best_value[lane] = best_value[lane + width];
            best_index[lane] = best_index[lane + width];
        }
        barrier();
    }
}

// The k highest logits in order, by k rounds of "best below the previous one".
void select_top_k() {
    const uint lane = gl_LocalInvocationID.x;
    float previous_value = 1.0 / 0.0;
    uint previous_index = 0;
    uint found = 0;
    for (uint round = 0; round < settings.top_k; ++round) {
        float value = -1.0 / 0.0;
        uint index = 0xffffffffu;
        for (uint i = lane; i < settings.count; i += LANES) {
            const float l = logits[i];
            const bool below =
                l < previous_value || (l == previous_value && i > previous_index && round > 0);
            if (below && (l > value || index == 0xffffffffu)) {
                value = l;
                index = i;
            }
        }
        reduce_best(value, index);
        if (best_index[0] == 0xffffffffu) break;
        previous_value = best_value[0];
        previous_index = best_index[0];
        if (lane == 0) {
            candidate_value[found] = previous_value;
            candidate_index[found] = previous_index;
        }
        ++found;
        barrier();
    }
    if (lane == 0) candidates = found;
    barrier();
}

// Among the top-k candidates: min-p and top-p on the untempered probabilities (as the CPU
// sampler does), then the Gumbel-max draw over the survivors.
uint draw_from_candidates(uint step) {
    const float maximum = candidate_value[0];
    float total = 0.0;
    for (uint i = 0; i < candidates; ++i) total += exp(candidate_value[i] - maximum);
    float cumulative = 0.0;
    uint survivors = 0;
    for (; survivors < candidates; ++survivors) {
        const float p = exp(candidate_value[survivors] - maximum) / total;
        if (survivors > 0 && p < settings.min_p / total) break;
        cumulative += p;
        if (cumulative >= settings.top_p) {
            ++survivors;
            break;
        }
    }
    survivors = max(survivors, 1u);
    float best = -1.0 / 0.0;
    uint chosen = candidate_index[0];
    for (uint i = 0; i < survivors; ++i) {
        const float score = (candidate_value[i] - maximum) / settings.temperature +
                            gumbel(step, candidate_index[i]);
        if (score > best) {
            best = score;
            chosen = candidate_index[i];
        }
    }
    return chosen;
}

// No top-k: min-p over the whole vocabulary (a logit at least max + ln(min_p)), then the draw.
void draw_from_vocabulary(uint step) {
    const uint lane = gl_LocalInvocationID.x;
    float threshold = -1.0 / 0.0;
    if (settings.min_p > 0.0) {
        float value = -1.0 / 0.0;
        for (uint i = lane; i < settings.count; i += LANES) value = max(value, logits[i]);
        reduce_best(value, 0);
        threshold = best_value[0] + log(settings.min_p);
        barrier();
    }
    float value = -1.0 / 0.0;
    uint index = 0xffffffffu;
    for (uint i = lane; i < settings.count; i += LANES) {
        if (logits[i] < threshold) continue;
        const float score = logits[i] / settings.temperature + gumbel(step, i);
        if (score > value) {
            value = score;
            index = i;
        }
    }
    reduce_best(value, index);
}

void main() {
    const uint step = settings.step + gl_WorkGroupID.x;
    const uint slot = (settings.slot + gl_WorkGroupID.x) % settings.ring;
    if (settings.top_k > 0) {
        select_top_k();
        if (gl_LocalInvocationID.x == 0) tokens[slot] = draw_from_candidates(step);
    } else {
        draw_from_vocabulary(step);
        if (gl_LocalInvocationID.x == 0) tokens[slot] = best_index[0];
    }
}
