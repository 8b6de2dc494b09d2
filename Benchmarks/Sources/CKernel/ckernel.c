// The C kernel: see include/ckernel.h. The per-sample math is the engine's
// (Sources/ParamCore: Animation.progress, CubicBezier.value, ValueDomain, Renderer.renderChunk),
// written the lean C way: coefficients computed once per animation; each parameter's values
// for a block of frames, then the signal path over the block (a loop fusing all five solvers with
// the libm calls measured slower: every call spills their state, as xmm registers are
// caller-saved).
#include "ckernel.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double mins[CK_PARAMS] = {0, 0, 20, -1, 0};
static const double maxs[CK_PARAMS] = {1, 1, 20000, 1, 1};
static const double initials[CK_PARAMS] = {1, 0, 440, 0, 1};

void ck_init_idle(ck_state *s, double sample_rate, double tone) {
    memset(s, 0, sizeof *s);
    s->sample_rate = sample_rate;
    for (int p = 0; p < CK_PARAMS; p++) {
        s->params[p].value = p == CK_TONE ? tone : initials[p];
        s->params[p].min = mins[p];
        s->params[p].max = maxs[p];
    }
}

void ck_animate(ck_state *s, int p, double from, double to, double seconds,
                double x1, double y1, double x2, double y2, int log_domain) {
    ck_param *a = &s->params[p];
    a->animating = 1;
    a->log_domain = log_domain;
    a->target = to;
    a->from_encoded = log_domain ? log(from) : from;
    a->delta_encoded = (log_domain ? log(to) : to) - a->from_encoded;
    double f = seconds * s->sample_rate + 0.5;
    a->pass_frames = f >= 1 ? (int64_t)f : 0;
    a->inverse_pass = a->pass_frames > 0 ? 1.0 / (double)a->pass_frames : 0;
    a->pass = a->within = 0;
    a->cx = 3 * x1;
    a->bx = 3 * (x2 - x1) - a->cx;
    a->ax = 1 - a->cx - a->bx;
    a->cy = 3 * y1;
    a->by = 3 * (y2 - y1) - a->cy;
    a->ay = 1 - a->cy - a->by;
    a->t = a->d = a->dd = a->guess = a->inverse = 0;
    a->history = 0;
}

void ck_init_all_default(ck_state *s, double sample_rate, double seconds) {
    ck_init_idle(s, sample_rate, 0.5);
    ck_animate(s, CK_VOLUME, 0.2, 0.8, seconds, 0.25, 0.1, 0.25, 1, 0);
    ck_animate(s, CK_TONE, 0.3, 0.9, seconds, 0.25, 0.1, 0.25, 1, 0);
    ck_animate(s, CK_FREQUENCY, 220, 880, seconds, 0.25, 0.1, 0.25, 1, 1);
    ck_animate(s, CK_PAN, -0.8, 0.8, seconds, 0.25, 0.1, 0.25, 1, 0);
    ck_animate(s, CK_INPUT, 0.2, 0.9, seconds, 0.25, 0.1, 0.25, 1, 0);
}

// y at the t where x(t) = progress, 0 < progress < 1, as CubicBezier.value solves it: a chord
// step from the quadratic extrapolation of the last three solutions, with 1/x' from the sample
// before; else Newton from the guess, kept inside a shrinking bracket, bisection when a step
// leaves it.
static inline double bezier(ck_param *a, double progress) {
    double ax = a->ax, bx = a->bx, cx = a->cx;
    double last = a->t, g = a->guess, inverse = a->inverse;
    if (a->history >= 3 && g > 0 && g < 1 && inverse > 0) {
        double residual = (cx * g - progress) + (ax * g + bx) * (g * g);
        double step = residual * inverse;
        double slope = (3 * ax * g + 2 * bx) * g + cx;
        double t = g - step;
        double k = slope * inverse;
        if (fabs(step) < 1e-7 && fabs(1 - k) < 0.5 && fabs(step * (1 - k)) < 5e-14 && t > 0 && t < 1) {
            double d = a->d, dd = a->dd;
            a->guess = (g + d + 2 * dd) - step * 3;
            a->t = t;
            a->d = t - last;
            a->dd = (t - last) - d;
            a->inverse = 1 / slope;
            return ((a->ay * t + a->by) * t + a->cy) * t;
        }
    }
    double lo = 0, hi = 1;
    double t = a->history >= 1 && g > 0 && g < 1 ? g : (last > 0 && last < 1 ? last : progress);
    for (int i = 0; i < 100; i++) {
        double residual = ((ax * t + bx) * t + cx) * t - progress;
        if (fabs(residual) <= 1e-12) break;
        if (residual > 0) hi = t; else lo = t;
        double step = residual / ((3 * ax * t + 2 * bx) * t + cx);
        double next = t - step;
        if (next > lo && next < hi) {
            t = next;
            if (fabs(step) < 1e-7) break;
        } else {
            t = 0.5 * (lo + hi);
            if (hi - lo <= 1e-16) break;
        }
    }
    double d = a->history >= 1 ? t - last : 0;
    double dd = a->history >= 2 ? d - a->d : 0;
    double next = t + d + dd;
    double slope = (3 * ax * next + 2 * bx) * next + cx;
    a->t = t;
    a->d = d;
    a->dd = dd;
    a->guess = next;
    a->inverse = slope > 0 ? 1 / slope : 0;
    if (a->history < 3) a->history++;
    return ((a->ay * t + a->by) * t + a->cy) * t;
}

// The value of an animating parameter at its next frame.
static inline double step(ck_param *a) {
    double forward = (double)a->within * a->inverse_pass;
    double p = (a->pass & 1) ? 1 - forward : forward;
    double v;
    if (p >= 1) {
        v = a->target;
    } else {
        double eased = p > 0 ? bezier(a, p) : 0;
        double x = a->from_encoded + a->delta_encoded * eased;
        v = a->log_domain ? exp(x) : x;
    }
    if (++a->within == a->pass_frames) {
        a->within = 0;
        a->pass++;
    }
    v = v >= a->max ? a->max : (v >= a->min ? v : a->min);
    a->value = v;
    return v;
}

#define CK_BLOCK 256

// Writes the values of `frames` frames of one parameter: its loop-carried solver runs on its
// own, in registers, with no libm call in its loop but the log domain's exp.
static void fill(ck_param *a, double *out, int frames) {
    if (!a->animating) {
        for (int i = 0; i < frames; i++) out[i] = a->value;
        return;
    }
    for (int i = 0; i < frames; i++) out[i] = step(a);
}

void ck_render(ck_state *s, int frames, const float *in1, const float *in2, float *out1, float *out2) {
    const double two_pi = 2 * M_PI;
    const double radians_per_hz = two_pi / s->sample_rate;
    ck_param *ps = s->params;
    double ph = s->phase;
    int any = 0;
    for (int p = 0; p < CK_PARAMS; p++) any |= ps[p].animating;
    if (!any) {
        // At rest: constants, the pan law once.
        double vol = ps[CK_VOLUME].value, tone = ps[CK_TONE].value, f = ps[CK_FREQUENCY].value;
        double g = ps[CK_INPUT].value, angle = (ps[CK_PAN].value + 1) * M_PI / 4;
        double left = cos(angle), right = sin(angle), dphase = radians_per_hz * f;
        for (int i = 0; i < frames; i++) {
            ph += dphase;
            if (ph >= two_pi) ph -= two_pi;
            double t = sin(ph) * tone;
            out1[i] = (float)(vol * (t * left + in1[i] * g));
            out2[i] = (float)(vol * (t * right + in2[i] * g));
        }
        s->phase = ph;
        return;
    }
    // Each parameter's values for a block, then the signal path over the block.
    double vol[CK_BLOCK], ton[CK_BLOCK], frq[CK_BLOCK], pan[CK_BLOCK], inp[CK_BLOCK];
    int pan_moves = ps[CK_PAN].animating;
    for (int done = 0; done < frames; done += CK_BLOCK) {
        int n = frames - done < CK_BLOCK ? frames - done : CK_BLOCK;
        fill(&ps[CK_VOLUME], vol, n);
        fill(&ps[CK_TONE], ton, n);
        fill(&ps[CK_FREQUENCY], frq, n);
        fill(&ps[CK_PAN], pan, n);
        fill(&ps[CK_INPUT], inp, n);
        const float *a = in1 + done, *b = in2 + done;
        float *o1 = out1 + done, *o2 = out2 + done;
        double angle = (pan[0] + 1) * M_PI / 4;
        double left = cos(angle), right = sin(angle);
        for (int i = 0; i < n; i++) {
            ph += radians_per_hz * frq[i];
            if (ph >= two_pi) ph -= two_pi;
            double t = sin(ph) * ton[i];
            if (pan_moves) {
                angle = (pan[i] + 1) * M_PI / 4;
                left = cos(angle);
                right = sin(angle);
            }
            o1[i] = (float)(vol[i] * (t * left + a[i] * inp[i]));
            o2[i] = (float)(vol[i] * (t * right + b[i] * inp[i]));
        }
    }
    s->phase = ph;
}
