/*
 * cfloor: the C floor for `make bench-process` — SPEC §2's signal path and five parameters on
 * per-sample linear ramps, `/subscribe` and `/ping`, written the plain C way so that paramd's
 * process cost can be read against it. What it does and does not do, its threads, and why
 * liblo's server is not used: docs/PERFORMANCE.md, "Process cost against a C floor".
 *
 *   cc -O2 -o cfloor cfloor.c -ljack -llo -lm -lpthread
 *   cfloor -s SERVER [-n NAME] -p PORT
 *
 * It calls libm's sin and cos; -DCFLOOR_INLINE_SINE takes them from the polynomials paramd's
 * signal path uses (ParamCore/Render/SignalMath.swift) instead: not the floor, but a reading of
 * what paramd costs beyond the sine ("The callback alone").
 */
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

#ifdef CFLOOR_INLINE_SINE
/* fdlibm's kernels on [-pi/4, pi/4], as in SignalMath.swift; the quadrant here by truncation,
 * there by a rounding shift (the same quadrant but at exact ties). */
static inline double kernel_sin(double x) {
    double z = x * x, v = z * x;
    double r = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04 + z * (2.75573137070700676789e-06
        + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)));
    return x + v * (-1.66666666666666324348e-01 + z * r);
}
static inline double kernel_cos(double x) {
    double z = x * x;
    double r = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 + z * (2.48015872894767294178e-05
        + z * (-2.75573143513906633035e-07 + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
    double hz = 0.5 * z, w = 1.0 - hz;
    return w + (((1.0 - w) - hz) + z * r);
}
static inline double phase_sin(double x) { /* 0 <= x < 2 pi */
    int n = (int)(x * 6.36619772367581382433e-01 + 0.5);
    double q = n, r = (x - q * 1.57079632673412561417e+00) - q * 6.07710050650619224932e-11;
    switch (n & 3) {
    case 0: return kernel_sin(r);
    case 1: return kernel_cos(r);
    case 2: return -kernel_sin(r);
    default: return -kernel_cos(r);
    }
}
static inline void quarter_cos_sin(double a, double *c, double *s) { /* 0 <= a <= pi/2 */
    if (a <= 7.85398163397448278999e-01) { *c = kernel_cos(a); *s = kernel_sin(a); return; }
    double r = (1.57079632673412561417e+00 - a) + 6.07710050650619224932e-11;
    *c = kernel_sin(r);
    *s = kernel_cos(r);
}
#define TONE_SIN(x) phase_sin(x)
#define PAN_COS_SIN(a, c, s) quarter_cos_sin((a), (c), (s))
#else
#define TONE_SIN(x) sin(x)
#define PAN_COS_SIN(a, c, s) (*(c) = cos(a), *(s) = sin(a))
#endif

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

/* ------------------------------------------------------------------ main thread → process */

/* A new target: ramp to `target` over `frames` samples (0: at once). */
typedef struct {
    int param;
    double target;
    uint32_t frames;
} command_t;

#define RING_SIZE 256 /* a power of two */
static command_t ring[RING_SIZE];
static atomic_uint ring_head; /* written by the main thread (producer) */
static atomic_uint ring_tail; /* written by the process thread (consumer) */
static atomic_ulong commands_pushed, commands_applied;

/* Main thread. Returns 0 when the ring is full (the command is dropped). */
static int ring_push(command_t c) {
    unsigned head = atomic_load_explicit(&ring_head, memory_order_relaxed);
    /* acquire: pairs with the consumer's release of tail, so the slot is free to write */
    unsigned tail = atomic_load_explicit(&ring_tail, memory_order_acquire);
    if (head - tail == RING_SIZE) return 0;
    ring[head & (RING_SIZE - 1)] = c;
    /* release: the slot's contents before the new head */
    atomic_store_explicit(&ring_head, head + 1, memory_order_release);
    atomic_fetch_add_explicit(&commands_pushed, 1, memory_order_release);
    return 1;
}

/* ------------------------------------------------------------------ process thread state */

typedef struct {
    double value;    /* sounding at the next frame */
    double target;
    double step;     /* per frame while remaining > 0 */
    uint32_t remaining;
} ramp_t;

static ramp_t ramps[NPARAMS];
static double phase;
static double sample_rate = 48000;
static jack_port_t *in_ports[2], *out_ports[2];

/* process → publisher: each value at the end of the last period (bits of a double), and
 * which parameters were still moving then. */
static _Atomic uint64_t published_bits[NPARAMS];
static atomic_uint moving_mask;

static inline uint64_t bits_of(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double double_of(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

/* Realtime: the value of this frame, then one step on. */
static inline double ramp_next(ramp_t *r) {
    double v = r->value;
    if (r->remaining) {
        if (--r->remaining == 0) r->value = r->target;
        else r->value += r->step;
    }
    return v;
}

/* Realtime. The JACK process callback. */
static int process(jack_nframes_t nframes, void *arg) {
    (void)arg;
    /* New targets, in arrival order. */
    unsigned tail = atomic_load_explicit(&ring_tail, memory_order_relaxed);
    /* acquire: pairs with the producer's release of head (the slots' contents) */
    unsigned head = atomic_load_explicit(&ring_head, memory_order_acquire);
    if (tail != head) {
        unsigned applied = 0;
        for (; tail != head; tail++, applied++) {
            const command_t *c = &ring[tail & (RING_SIZE - 1)];
            ramp_t *r = &ramps[c->param];
            r->target = c->target;
            if (c->frames == 0) {
                r->value = c->target;
                r->remaining = 0;
            } else {
                r->step = (c->target - r->value) / c->frames;
                r->remaining = c->frames;
            }
        }
        /* release: the slots are free again */
        atomic_store_explicit(&ring_tail, tail, memory_order_release);
        atomic_fetch_add_explicit(&commands_applied, applied, memory_order_release);
    }

    const float *in1 = jack_port_get_buffer(in_ports[0], nframes);
    const float *in2 = jack_port_get_buffer(in_ports[1], nframes);
    float *out1 = jack_port_get_buffer(out_ports[0], nframes);
    float *out2 = jack_port_get_buffer(out_ports[1], nframes);

    const double two_pi = 2 * M_PI;
    const double radians_per_hz = two_pi / sample_rate;
    ramp_t *vol = &ramps[VOLUME], *ton = &ramps[TONE], *frq = &ramps[FREQUENCY];
    ramp_t *pan = &ramps[PAN], *inp = &ramps[INPUT];
    double ph = phase;

    if (ton->value == 0 && ton->remaining == 0) {
        /* No tone sounds: keep the phase running and pass the inputs through. */
        for (jack_nframes_t i = 0; i < nframes; i++) {
            ph += radians_per_hz * ramp_next(frq);
            if (ph >= two_pi) ph -= two_pi;
            double g = ramp_next(vol) * ramp_next(inp);
            ramp_next(pan);
            out1[i] = (float)(g * in1[i]);
            out2[i] = (float)(g * in2[i]);
        }
    } else {
        double angle = (pan->value + 1) * M_PI / 4;
        double left, right;
        PAN_COS_SIN(angle, &left, &right);
        int pan_moves = pan->remaining != 0;
        for (jack_nframes_t i = 0; i < nframes; i++) {
            ph += radians_per_hz * ramp_next(frq);
            if (ph >= two_pi) ph -= two_pi;
            double t = TONE_SIN(ph) * ramp_next(ton);
            double p = ramp_next(pan);
            if (pan_moves) {
                angle = (p + 1) * M_PI / 4;
                PAN_COS_SIN(angle, &left, &right);
            }
            double v = ramp_next(vol), g = ramp_next(inp);
            out1[i] = (float)(v * (t * left + in1[i] * g));
            out2[i] = (float)(v * (t * right + in2[i] * g));
        }
    }
    phase = ph;

    unsigned moving = 0;
    for (int p = 0; p < NPARAMS; p++) {
        /* relaxed: each cell stands alone; the publisher reads the mask first (acquire) */
        atomic_store_explicit(&published_bits[p], bits_of(ramps[p].value), memory_order_relaxed);
        if (ramps[p].remaining) moving |= 1u << p;
    }
    /* release: pairs with the publisher's acquire, so the values above are visible with it */
    atomic_store_explicit(&moving_mask, moving, memory_order_release);
    return 0;
}

/* ------------------------------------------------------------------ OSC out, by hand */

static int osc_fd = -1;

static size_t osc_put_string(char *buf, const char *s) {
    size_t n = strlen(s) + 1, padded = (n + 3) & ~(size_t)3;
    memcpy(buf, s, n);
    memset(buf + n, 0, padded - n);
    return padded;
}

static size_t osc_put_float(char *buf, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u = htonl(u);
    memcpy(buf, &u, 4);
    return 4;
}

/* `address f value` into buf; returns its length. */
static size_t osc_value_message(char *buf, const char *address, float value) {
    size_t n = osc_put_string(buf, address);
    n += osc_put_string(buf + n, ",f");
    return n + osc_put_float(buf + n, value);
}

static void send_to(const struct sockaddr_in *to, const void *data, size_t size) {
    sendto(osc_fd, data, size, MSG_DONTWAIT, (const struct sockaddr *)to, sizeof *to);
}

/* ------------------------------------------------------------------ subscribers */

#define MAX_SUBSCRIBERS 64

typedef struct {
    struct sockaddr_in address;
    unsigned mask;               /* parameters whose address the pattern matches */
    uint64_t interval_ns;        /* 1/rate */
    double last_sent[NPARAMS];   /* the value last sent (NaN: none) */
    uint64_t next_due[NPARAMS];  /* no value before this time */
} subscriber_t;

static subscriber_t subscribers[MAX_SUBSCRIBERS];
static int subscriber_count;
static pthread_mutex_t subscribers_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t publisher_wake;
static atomic_int quitting;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Publisher thread, under the lock. One round at time `now`: to each subscriber, the values
 * that changed since it last got them and are due. Returns 1 while anything moves or waits
 * to be sent. */
static int publish_round(uint64_t now) {
    /* acquire: pairs with the process thread's release of the mask (and the values before) */
    unsigned moving = atomic_load_explicit(&moving_mask, memory_order_acquire);
    int busy = moving != 0
        || atomic_load_explicit(&commands_pushed, memory_order_acquire)
               != atomic_load_explicit(&commands_applied, memory_order_acquire);
    double values[NPARAMS];
    char messages[NPARAMS][32];
    size_t lengths[NPARAMS];
    for (int p = 0; p < NPARAMS; p++) {
        values[p] = double_of(atomic_load_explicit(&published_bits[p], memory_order_relaxed));
        lengths[p] = 0;
    }
    char datagram[512];
    for (int s = 0; s < subscriber_count; s++) {
        subscriber_t *sub = &subscribers[s];
        int due[NPARAMS], count = 0;
        for (int p = 0; p < NPARAMS; p++) {
            if (!(sub->mask & (1u << p)) || values[p] == sub->last_sent[p]) continue;
            /* (1 µs of slack for the rounding of the ticks' nanoseconds) */
            if (now + 1000 < sub->next_due[p]) { busy = 1; continue; }
            due[count++] = p;
        }
        if (count == 0) continue;
        for (int k = 0; k < count; k++) {
            int p = due[k];
            if (!lengths[p]) lengths[p] = osc_value_message(messages[p], params[p].address, (float)values[p]);
            sub->last_sent[p] = values[p];
            sub->next_due[p] = now + sub->interval_ns;
        }
        if (count == 1) {
            send_to(&sub->address, messages[due[0]], lengths[due[0]]);
            continue;
        }
        /* Several at once: one bundle, time tag "immediately". */
        size_t n = osc_put_string(datagram, "#bundle");
        static const unsigned char immediately[8] = {0, 0, 0, 0, 0, 0, 0, 1};
        memcpy(datagram + n, immediately, 8);
        n += 8;
        for (int k = 0; k < count; k++) {
            uint32_t size = htonl((uint32_t)lengths[due[k]]);
            memcpy(datagram + n, &size, 4);
            memcpy(datagram + n + 4, messages[due[k]], lengths[due[k]]);
            n += 4 + lengths[due[k]];
        }
        send_to(&sub->address, datagram, n);
    }
    return busy;
}

static void *publisher(void *arg) {
    (void)arg;
    for (;;) {
        /* Nothing moves: sleep until the main thread says something may. */
        while (sem_wait(&publisher_wake) != 0 && errno == EINTR) {}
        if (atomic_load(&quitting)) return NULL;
        /* Something may move: a round at each tick of the fastest subscriber's rate until
         * every parameter rests and every subscriber has its final values. */
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        for (;;) {
            pthread_mutex_lock(&subscribers_lock);
            uint64_t tick = 1000000000u;
            for (int s = 0; s < subscriber_count; s++)
                if (subscribers[s].interval_ns < tick) tick = subscribers[s].interval_ns;
            uint64_t now = (uint64_t)next.tv_sec * 1000000000u + (uint64_t)next.tv_nsec;
            int busy = subscriber_count > 0 && publish_round(now);
            pthread_mutex_unlock(&subscribers_lock);
            if (!busy || atomic_load(&quitting)) break;
            /* Wake-ups that arrived meanwhile are covered by this loop (it runs while a
             * pushed command is not yet applied). */
            while (sem_trywait(&publisher_wake) == 0) {}
            next.tv_nsec += (long)tick;
            while (next.tv_nsec >= 1000000000L) { next.tv_nsec -= 1000000000L; next.tv_sec++; }
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {}
        }
    }
}

/* ------------------------------------------------------------------ OSC in (main thread) */

static int number_arg(lo_message m, int i, double *out) {
    if (i >= lo_message_get_argc(m)) return 0;
    char t = lo_message_get_types(m)[i];
    if (t != 'i' && t != 'f' && t != 'd' && t != 'h') return 0;
    *out = (double)lo_hires_val((lo_type)t, lo_message_get_argv(m)[i]);
    return 1;
}

static void subscribe(lo_message m, const struct sockaddr_in *from) {
    const char *pattern = "/*";
    double rate = 60, port = 0;
    int argc = lo_message_get_argc(m);
    const char *types = lo_message_get_types(m);
    if (argc > 0 && (types[0] == 's' || types[0] == 'S')) pattern = &lo_message_get_argv(m)[0]->s;
    if (argc > 1 && !number_arg(m, 1, &rate)) return;
    if (argc > 2 && !number_arg(m, 2, &port)) return;
    if (!(rate >= 0) || !(port >= 0 && port < 65536)) return;
    if (rate == 0 || rate > sample_rate) rate = 1000; /* "every period", as near as a tick gets */

    struct sockaddr_in to = *from;
    if (port > 0) to.sin_port = htons((uint16_t)port);
    unsigned mask = 0;
    for (int p = 0; p < NPARAMS; p++)
        if (lo_pattern_match(params[p].address, pattern)) mask |= 1u << p;

    pthread_mutex_lock(&subscribers_lock);
    int s = 0;
    while (s < subscriber_count && !(subscribers[s].address.sin_addr.s_addr == to.sin_addr.s_addr
                                     && subscribers[s].address.sin_port == to.sin_port))
        s++;
    if (s == MAX_SUBSCRIBERS) { pthread_mutex_unlock(&subscribers_lock); return; }
    if (s == subscriber_count) subscriber_count++;
    subscriber_t *sub = &subscribers[s];
    sub->address = to;
    sub->mask = mask;
    sub->interval_ns = (uint64_t)(1e9 / rate);
    /* `/subscribed s pattern f rate`, then the values now. */
    char buf[512];
    size_t n = osc_put_string(buf, "/subscribed");
    n += osc_put_string(buf + n, ",sf");
    if (strlen(pattern) < 256) {
        n += osc_put_string(buf + n, pattern);
        n += osc_put_float(buf + n, (float)rate);
        send_to(&to, buf, n);
    }
    uint64_t now = now_ns();
    for (int p = 0; p < NPARAMS; p++) {
        sub->last_sent[p] = NAN;
        sub->next_due[p] = 0;
        if (!(mask & (1u << p))) continue;
        double v = double_of(atomic_load_explicit(&published_bits[p], memory_order_relaxed));
        n = osc_value_message(buf, params[p].address, (float)v);
        send_to(&to, buf, n);
        sub->last_sent[p] = v;
        sub->next_due[p] = now + sub->interval_ns;
    }
    pthread_mutex_unlock(&subscribers_lock);
    sem_post(&publisher_wake);
}

static void handle_packet(char *data, size_t size, const struct sockaddr_in *from) {
    if (size < 4 || data[0] != '/' || memchr(data, 0, size) == NULL) return; /* messages only */
    int result = 0;
    lo_message m = lo_message_deserialise(data, size, &result);
    if (!m) return;
    const char *path = data;
    for (int p = 0; p < NPARAMS; p++) {
        if (strcmp(path, params[p].address) != 0) continue;
        double value, seconds = 0.25;
        if (!number_arg(m, 0, &value) || !isfinite(value)) break;
        if (lo_message_get_argc(m) > 1 && !number_arg(m, 1, &seconds)) break;
        if (!(seconds >= 0 && seconds <= 86400)) break;
        if (value < params[p].min) value = params[p].min;
        if (value > params[p].max) value = params[p].max;
        command_t c = {p, value, (uint32_t)(seconds * sample_rate + 0.5)};
        /* The publisher sleeps while nothing moves; only subscribers need it awake. */
        if (ring_push(c) && subscriber_count > 0) sem_post(&publisher_wake);
        break;
    }
    if (strcmp(path, "/subscribe") == 0) {
        subscribe(m, from);
    } else if (strcmp(path, "/ping") == 0) {
        char buf[16];
        size_t n = osc_put_string(buf, "/pong");
        n += osc_put_string(buf + n, ",");
        send_to(from, buf, n);
    }
    lo_message_free(m);
}

/* ------------------------------------------------------------------ start and stop */

static void usage(void) {
    fprintf(stderr, "usage: cfloor -s SERVER [-n NAME] -p PORT\n");
    exit(64);
}

int main(int argc, char **argv) {
    const char *server = NULL, *name = "cfloor";
    int port = 0, opt;
    while ((opt = getopt(argc, argv, "s:n:p:")) != -1) {
        switch (opt) {
        case 's': server = optarg; break;
        case 'n': name = optarg; break;
        case 'p': port = atoi(optarg); break;
        default: usage();
        }
    }
    if (port <= 0 || port > 65535) usage();

    /* Signals go to a signalfd the main loop polls; blocked before any thread exists, so
     * every thread (JACK's included) inherits the mask. */
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);
    int signal_fd = signalfd(-1, &signals, SFD_CLOEXEC);

    osc_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in local = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(osc_fd, (struct sockaddr *)&local, sizeof local) != 0) {
        fprintf(stderr, "cfloor: cannot bind 127.0.0.1:%d: %s\n", port, strerror(errno));
        return 1;
    }

    for (int p = 0; p < NPARAMS; p++) {
        ramps[p].value = ramps[p].target = params[p].initial;
        atomic_store(&published_bits[p], bits_of(params[p].initial));
    }

    jack_status_t status;
    jack_options_t options = JackNoStartServer | (server ? JackServerName : 0);
    jack_client_t *client = jack_client_open(name, options, &status, server);
    if (!client) {
        fprintf(stderr, "cfloor: cannot open a JACK client on %s (status 0x%x)\n", server ? server : "the default server", status);
        return 1;
    }
    sample_rate = jack_get_sample_rate(client);
    static const char *port_names[4] = {"in_1", "in_2", "out_1", "out_2"};
    for (int i = 0; i < 2; i++) {
        in_ports[i] = jack_port_register(client, port_names[i], JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
        out_ports[i] = jack_port_register(client, port_names[2 + i], JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
        if (!in_ports[i] || !out_ports[i]) { fprintf(stderr, "cfloor: cannot register ports\n"); return 1; }
    }
    jack_set_process_callback(client, process, NULL);

    sem_init(&publisher_wake, 0, 0);
    pthread_t publisher_thread;
    pthread_create(&publisher_thread, NULL, publisher, NULL);
    pthread_setname_np(publisher_thread, "publisher");

    if (jack_activate(client) != 0) { fprintf(stderr, "cfloor: cannot activate\n"); return 1; }
    fprintf(stderr, "cfloor: ready: %s on %s, OSC on 127.0.0.1:%d\n", jack_get_client_name(client),
            server ? server : "the default server", port);

    struct pollfd fds[2] = {{.fd = osc_fd, .events = POLLIN}, {.fd = signal_fd, .events = POLLIN}};
    char packet[65536];
    for (;;) {
        if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
        if (fds[1].revents) break;
        if (fds[0].revents) {
            for (;;) {
                struct sockaddr_in from;
                socklen_t from_size = sizeof from;
                ssize_t n = recvfrom(osc_fd, packet, sizeof packet, MSG_DONTWAIT, (struct sockaddr *)&from, &from_size);
                if (n < 0) break;
                if (from.sin_family == AF_INET) handle_packet(packet, (size_t)n, &from);
            }
        }
    }

    jack_deactivate(client);
    jack_client_close(client);
    atomic_store(&quitting, 1);
    sem_post(&publisher_wake);
    pthread_join(publisher_thread, NULL);
    close(osc_fd);
    return 0;
}
