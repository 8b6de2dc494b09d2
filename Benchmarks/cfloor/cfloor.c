/*
 * cfloor: the C floor for `make bench-process` — SPEC §2's signal path and five parameters on
 * per-sample linear ramps, `/subscribe` and `/ping`, written the plain C way so that paramd's
 * process cost can be read against it. What it does and does not do, its threads, and why
 * liblo's server is not used: docs/PERFORMANCE.md, "Process cost against a C floor".
 *
 *   cc -O2 -o cfloor cfloor.c cfloor_osc.c -ljack -llo -lm -lpthread
 *   cfloor -s SERVER [-n NAME] -p PORT
 *
 * It calls libm's sin and cos; -DCFLOOR_INLINE_SINE takes them from the polynomials paramd's
 * signal path uses (ParamCore/Render/SignalMath.swift) instead: not the floor, but a reading of
 * what paramd costs beyond the sine ("The callback alone").
 */
#include "cfloor.h"

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

/* ------------------------------------------------------------------ main thread → process */

#define RING_SIZE 256 /* a power of two */
static command_t ring[RING_SIZE];
static atomic_uint ring_head; /* written by the main thread (producer) */
static atomic_uint ring_tail; /* written by the process thread (consumer) */
atomic_ulong commands_pushed, commands_applied;

/* Main thread. Returns 0 when the ring is full (the command is dropped). */
int ring_push(command_t c) {
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
double sample_rate = 48000;
static jack_port_t *in_ports[2], *out_ports[2];

/* process → publisher: each value at the end of the last period (bits of a double), and
 * which parameters were still moving then. */
_Atomic uint64_t published_bits[NPARAMS];
atomic_uint moving_mask;

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
