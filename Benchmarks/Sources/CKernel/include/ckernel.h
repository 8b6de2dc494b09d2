// The C kernel of `make bench` (docs/PERFORMANCE.md, "The C kernel"): SPEC §2's signal path
// with the five parameters moving along cubic Béziers, written as plain C, compiled -O2. It
// renders the same math as the Swift scenarios "Full render: all five animating, default
// curve" and "Full render: idle, tone on", so that their cost can be read against a floor.
#ifndef CKERNEL_H
#define CKERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { CK_VOLUME, CK_TONE, CK_FREQUENCY, CK_PAN, CK_INPUT, CK_PARAMS };

/// One parameter: a constant, or an endless back-and-forth (repeat inf, autoreverse) between
/// two values along a cubic Bézier, interpolated in the linear or the log domain.
typedef struct {
    int animating;
    int log_domain;
    double value;             // the constant, or the value at the last rendered frame
    double min, max;          // the parameter's range (the rendered value is clamped)
    double target;            // where a forward pass lands
    double from_encoded, delta_encoded;
    int64_t pass_frames, pass, within;
    double inverse_pass;
    double ax, bx, cx, ay, by, cy;  // the Bézier's power-basis coefficients
    // The solver's warm start (CubicBezier.value): the last t, its first and second
    // differences, the guess for the next sample, 1/x' there, how many solutions are known.
    double t, d, dd, guess, inverse;
    int history;
} ck_param;

typedef struct {
    ck_param params[CK_PARAMS];
    double phase;
    double sample_rate;
} ck_state;

/// Every parameter at rest on `initial` values (SPEC §3's, with the tone at `tone`).
void ck_init_idle(ck_state *s, double sample_rate, double tone);

/// Starts parameter `p` moving from `from` to `to` and back, `seconds` per pass, along the
/// cubic Bézier (x1,y1)(x2,y2), in the log domain when `log_domain`.
void ck_animate(ck_state *s, int p, double from, double to, double seconds,
                double x1, double y1, double x2, double y2, int log_domain);

/// The scenario "all five animating, default curve": the tone on at 0.5, and volume 0.2 ↔ 0.8,
/// tone 0.3 ↔ 0.9, frequency 220 ↔ 880 Hz (log domain), pan −0.8 ↔ 0.8, input 0.2 ↔ 0.9, each
/// along `default` (0.25,0.1)(0.25,1) in `seconds` per pass.
void ck_init_all_default(ck_state *s, double sample_rate, double seconds);

/// Renders `frames` frames: every parameter evaluated at every frame, then SPEC §2.
/// No allocation, no lock.
void ck_render(ck_state *s, int frames, const float *in1, const float *in2, float *out1, float *out2);

/// The modulator benchmarks' C floor (ckmodulator.c): one parameter at rest on `value` under a
/// modulator, polarity bi, in the linear domain. Shapes as `ModulatorShape`'s order.
enum { CK_SINE, CK_TRIANGLE, CK_SAW, CK_SQUARE, CK_RANDOM, CK_SH };

typedef struct {
    int shape;
    double phase, increment, reach;   // cycle position [0, 1), per frame; depth × (max − min)
    double value, min, max;
    uint64_t seed;
    int64_t cycle;
    double from, to;                  // this cycle's and the next cycle's random values
} ck_modulator;

void ck_modulator_init(ck_modulator *m, int shape, double hz, double sample_rate, double depth, double phase,
                       uint64_t seed, double value, double min, double max);

/// Renders `frames` frames of `count` parameters into `values` (`frames` a parameter).
void ck_modulate(ck_modulator *modulators, int count, double *values, int frames);

#ifdef __cplusplus
}
#endif
#endif
