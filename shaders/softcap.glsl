// Gemma 2's soft-cap, c * tanh(x / c) for c > 0 (0: no cap), on attention scores and on the
// final logits. The argument is clamped first: tanh built from exponentials overflows to
// inf / inf = NaN for large ones on some drivers, and tanh(±10) is already ±1 in float.
float softcap(float x, float cap) {
    return cap > 0.0 ? cap * tanh(clamp(x / cap, -10.0, 10.0)) : x;
}
