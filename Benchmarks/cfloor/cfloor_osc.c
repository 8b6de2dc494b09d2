/* cfloor's OSC: replies and values out (by hand), subscribers and their publisher thread,
 * messages in (liblo's parser, on the main thread). See cfloor.c. */
#include "cfloor.h"

/* ------------------------------------------------------------------ OSC out, by hand */

int osc_fd = -1;

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
sem_t publisher_wake;
atomic_int quitting;

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

void *publisher(void *arg) {
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

void handle_packet(char *data, size_t size, const struct sockaddr_in *from) {
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
