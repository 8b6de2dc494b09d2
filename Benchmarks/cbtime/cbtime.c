/*
 * cbtime: an LD_PRELOAD library that times a JACK client's process callback.
 *
 * It wraps jack_set_process_callback, so that JACK calls a wrapper that reads the time-stamp
 * counter (rdtscp) before and after the client's own callback. After skipping CBTIME_SKIP
 * callbacks (the client settling) it counts CBTIME_COUNT of them in a histogram of ticks, and
 * at exit writes to CBTIME_OUT: "n N", "total T" (all their ticks: the mean is what CPU time
 * sees, the median hides the few long periods), then the 10th, 25th, 50th, 75th, 90th and
 * 99th percentiles ("q0.50 T"). What it measures is the callback alone, from its first instruction to its
 * return: not the context switches and libjack's cycle around it, which are the same for any
 * client and on a shared VM vary far more than the callback does. Used by
 * scripts/callback-cost.py (docs/PERFORMANCE.md, "The callback alone").
 *
 *   gcc -O2 -shared -fPIC -o cbtime.so cbtime.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <jack/jack.h>
#include <x86intrin.h>

#define BUCKETS 1000000
static uint32_t histogram[BUCKETS];
static uint64_t seen, counted, beyond, total, skip, count = UINT64_MAX;
static JackProcessCallback callback;
static void *callback_arg;

static int timed(jack_nframes_t frames, void *unused) {
    (void)unused;
    unsigned aux;
    uint64_t t0 = __rdtscp(&aux);
    int r = callback(frames, callback_arg);
    uint64_t t1 = __rdtscp(&aux);
    if (seen++ >= skip && counted < count) {
        uint64_t d = t1 - t0;
        if (d < BUCKETS) histogram[d]++; else beyond++;
        total += d;
        counted++;
    }
    return r;
}

int jack_set_process_callback(jack_client_t *client, JackProcessCallback process, void *arg) {
    int (*real)(jack_client_t *, JackProcessCallback, void *) = dlsym(RTLD_NEXT, "jack_set_process_callback");
    const char *s = getenv("CBTIME_SKIP"), *c = getenv("CBTIME_COUNT");
    if (s) skip = strtoull(s, NULL, 10);
    if (c) count = strtoull(c, NULL, 10);
    callback = process;
    callback_arg = arg;
    return real(client, timed, NULL);
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("CBTIME_OUT");
    if (!path) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "n %llu\nbeyond %llu\ntotal %llu\n", (unsigned long long)counted, (unsigned long long)beyond,
            (unsigned long long)total);
    static const double quantiles[] = {0.10, 0.25, 0.50, 0.75, 0.90, 0.99};
    uint64_t sum = 0;
    int q = 0;
    for (int i = 0; i < BUCKETS && q < 6; i++) {
        sum += histogram[i];
        while (q < 6 && counted > 0 && sum >= quantiles[q] * counted) fprintf(f, "q%.2f %d\n", quantiles[q++], i);
    }
    fclose(f);
}
