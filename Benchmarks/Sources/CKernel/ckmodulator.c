// The C floor of the modulator benchmarks (docs/MODULATORS.md, "Cost"): SPEC §15's layer over
// parameters at rest, written the plain C way: per parameter, its value for a period's frames,
// then per frame the shape at a phase accumulator (libm's sin and cos for the sine and the
// random curve), depth times the range added, clamped. The same waves as Sources/ParamCore/
// Modulation (ModulatorWave, SplitMix64 per cycle), so the two can be read side by side.
#include "ckernel.h"

#include <math.h>

static double splitmix_bipolar(uint64_t seed, int64_t cycle) {
    uint64_t z = seed + ((uint64_t)cycle + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return 2.0 * ((double)(z >> 11) * 0x1p-53) - 1.0;
}

void ck_modulator_init(ck_modulator *m, int shape, double hz, double sample_rate, double depth, double phase,
                       uint64_t seed, double value, double min, double max) {
    m->shape = shape;
    m->phase = phase;
    m->increment = hz / sample_rate;
    m->reach = depth * (max - min);
    m->value = value;
    m->min = min;
    m->max = max;
    m->seed = seed;
    m->cycle = 0;
    m->from = splitmix_bipolar(seed, 0);
    m->to = splitmix_bipolar(seed, 1);
}

static inline double wave(const ck_modulator *m, double phase) {
    switch (m->shape) {
    case CK_SINE: return sin(6.28318530717958647693 * phase);
    case CK_TRIANGLE: return phase < 0.25 ? 4 * phase : (phase < 0.75 ? 2 - 4 * phase : 4 * phase - 4);
    case CK_SAW: return phase < 0.5 ? 2 * phase : 2 * phase - 2;
    case CK_SQUARE: return phase < 0.5 ? 1 : -1;
    case CK_RANDOM: return m->from + (m->to - m->from) * 0.5 * (1 - cos(3.14159265358979323846 * phase));
    default: return m->from;
    }
}

void ck_modulate(ck_modulator *modulators, int count, double *values, int frames) {
    for (int k = 0; k < count; k++) {
        ck_modulator *m = &modulators[k];
        double *out = values + (long)k * frames;
        for (int i = 0; i < frames; i++) out[i] = m->value;
        for (int i = 0; i < frames; i++) {
            double v = out[i] + m->reach * wave(m, m->phase);
            out[i] = v >= m->max ? m->max : (v >= m->min ? v : m->min);
            m->phase += m->increment;
            if (m->phase >= 1) {
                m->phase -= 1;
                m->cycle += 1;
                m->from = m->to;
                m->to = splitmix_bipolar(m->seed, m->cycle + 1);
            }
        }
    }
}
