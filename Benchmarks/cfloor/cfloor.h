/*
 * cfloor's two halves, and what they share: cfloor.c (the process thread, its ring of commands
 * and main) and cfloor_osc.c (OSC in and out, the subscribers and their publisher thread).
 */
#ifndef CFLOOR_H
#define CFLOOR_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <jack/jack.h>
#include <lo/lo.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { VOLUME, TONE, FREQUENCY, PAN, INPUT, NPARAMS };

static const struct {
    const char *name;
    const char *address;
    double min, max, initial;
} params[NPARAMS] = {
    {"volume", "/volume", 0, 1, 1},
    {"tone", "/tone", 0, 1, 0},
    {"frequency", "/frequency", 20, 20000, 440},
    {"pan", "/pan", -1, 1, 0},
    {"input", "/input", 0, 1, 1},
};

/* A new target: ramp to `target` over `frames` samples (0: at once). */
typedef struct {
    int param;
    double target;
    uint32_t frames;
} command_t;

/* cfloor.c: the process thread's side. */
extern atomic_ulong commands_pushed, commands_applied;
extern double sample_rate;
/* process → publisher: each value at the end of the last period (bits of a double), and
 * which parameters were still moving then. */
extern _Atomic uint64_t published_bits[NPARAMS];
extern atomic_uint moving_mask;

/* Main thread. Returns 0 when the ring is full (the command is dropped). */
int ring_push(command_t c);

static inline uint64_t bits_of(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double double_of(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

/* cfloor_osc.c: OSC and the subscribers. */
extern int osc_fd;
extern sem_t publisher_wake;
extern atomic_int quitting;
void *publisher(void *arg);
void handle_packet(char *data, size_t size, const struct sockaddr_in *from);

#endif
