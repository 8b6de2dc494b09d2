/*
 * alloccount.so: an LD_PRELOAD shim that counts heap allocations (and page faults) made inside
 * the JACK process callback of any JACK client it is preloaded into.
 *
 * It wraps the callback registered with jack_set_process_callback in one that sets a
 * thread-local flag around the call; the interposed allocator functions count only while that
 * flag is set. The line `process_calls=N allocations=M frees=K faults=F` goes to
 * $PARAMD_ALLOC_REPORT (or stderr) at exit; PARAMD_ALLOC_ABORT=1 aborts on the first allocation.
 * Build, environment variables and details: Tests/README.md, "alloccount".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

/* glibc's own allocator entry points: calling them directly needs no dlsym bootstrap. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

typedef int (*process_callback_t)(uint32_t nframes, void *arg);
typedef void *(*thread_callback_t)(void *arg);
typedef int (*set_process_callback_t)(void *client, process_callback_t cb, void *arg);
typedef int (*set_process_thread_t)(void *client, thread_callback_t cb, void *arg);

/* initial-exec: static TLS, no __tls_get_addr (which may itself allocate) on first access. */
static __thread int inside_process __attribute__((tls_model("initial-exec")));

static uint64_t process_calls;
static uint64_t allocations;
static uint64_t frees;
static uint64_t faults;
static int registered;
static int abort_on_allocation = -1;

static inline void count_allocation(void) {
    if (__builtin_expect(inside_process, 0)) {
        __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
        if (__atomic_load_n(&abort_on_allocation, __ATOMIC_RELAXED) == 1) abort();
    }
}

static inline void count_free(void *ptr) {
    if (__builtin_expect(inside_process, 0) && ptr != NULL)
        __atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size) {
    count_allocation();
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
    count_allocation();
    return __libc_calloc(n, size);
}

void *realloc(void *ptr, size_t size) {
    count_allocation();
    return __libc_realloc(ptr, size);
}

void *reallocarray(void *ptr, size_t n, size_t size) {
    count_allocation();
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(ptr, bytes);
}

void free(void *ptr) {
    count_free(ptr);
    __libc_free(ptr);
}

void *memalign(size_t alignment, size_t size) {
    count_allocation();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_allocation();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    count_allocation();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

void *valloc(size_t size) {
    count_allocation();
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    count_allocation();
    return __libc_pvalloc(size);
}

/* ---- JACK interposition ------------------------------------------------------------------ */

#define MAX_REGISTRATIONS 64

struct registration {
    process_callback_t process;
    thread_callback_t thread;
    void *arg;
};

/* Fixed table: a registration never allocates. A callback registered again with the same
 * function and argument (a client that reopens after its server came back) reuses its slot, whose
 * contents are then unchanged; beyond MAX_REGISTRATIONS distinct ones, the rest go uncounted. */
static struct registration registrations[MAX_REGISTRATIONS];
static unsigned registration_count;
static pthread_mutex_t registration_lock = PTHREAD_MUTEX_INITIALIZER;

static struct registration *find_or_add_registration(process_callback_t process,
                                                     thread_callback_t thread, void *arg) {
    pthread_mutex_lock(&registration_lock);
    struct registration *found = NULL;
    for (unsigned i = 0; i < registration_count && found == NULL; i++) {
        struct registration *r = &registrations[i];
        if (r->process == process && r->thread == thread && r->arg == arg) found = r;
    }
    if (found == NULL && registration_count < MAX_REGISTRATIONS) {
        found = &registrations[registration_count++];
        found->process = process;
        found->thread = thread;
        found->arg = arg;
    }
    pthread_mutex_unlock(&registration_lock);
    if (found == NULL) {
        static const char message[] = "alloccount: too many process callbacks, not counting\n";
        (void)!write(2, message, sizeof message - 1);
    }
    return found;
}

static uint64_t thread_faults(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) != 0) return 0;
    return (uint64_t)usage.ru_minflt + (uint64_t)usage.ru_majflt;
}

static int counting_process(uint32_t nframes, void *arg) {
    struct registration *r = arg;
    uint64_t faults_before = thread_faults();
    inside_process = 1;
    int result = r->process(nframes, r->arg);
    inside_process = 0;
    uint64_t taken = thread_faults() - faults_before;
    if (taken != 0) __atomic_fetch_add(&faults, taken, __ATOMIC_RELAXED);
    __atomic_fetch_add(&process_calls, 1, __ATOMIC_RELAXED);
    return result;
}

/* jack_set_process_thread: the client's own loop runs on the process thread, so count it whole. */
static void *counting_thread(void *arg) {
    struct registration *r = arg;
    inside_process = 1;
    void *result = r->thread(r->arg);
    inside_process = 0;
    return result;
}

static void start_interval_reporter(void);

int jack_set_process_callback(void *client, process_callback_t callback, void *arg) {
    set_process_callback_t real =
        (set_process_callback_t)dlsym(RTLD_NEXT, "jack_set_process_callback");
    if (real == NULL) return -1;
    if (callback == NULL) return real(client, callback, arg);
    struct registration *r = find_or_add_registration(callback, NULL, arg);
    if (r == NULL) return real(client, callback, arg);
    __atomic_store_n(&registered, 1, __ATOMIC_RELAXED);
    start_interval_reporter();
    return real(client, counting_process, r);
}

int jack_set_process_thread(void *client, thread_callback_t callback, void *arg) {
    set_process_thread_t real = (set_process_thread_t)dlsym(RTLD_NEXT, "jack_set_process_thread");
    if (real == NULL) return -1;
    if (callback == NULL) return real(client, callback, arg);
    struct registration *r = find_or_add_registration(NULL, callback, arg);
    if (r == NULL) return real(client, callback, arg);
    __atomic_store_n(&registered, 1, __ATOMIC_RELAXED);
    start_interval_reporter();
    return real(client, counting_thread, r);
}

/* ---- Report -------------------------------------------------------------------------------- */

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/* Writes the report now. Exported so a test or a debugger can ask for it. */
__attribute__((visibility("default"))) void alloccount_report(void) {
    char line[160];
    int length = snprintf(line, sizeof line, "process_calls=%llu allocations=%llu frees=%llu faults=%llu\n",
                          (unsigned long long)__atomic_load_n(&process_calls, __ATOMIC_RELAXED),
                          (unsigned long long)__atomic_load_n(&allocations, __ATOMIC_RELAXED),
                          (unsigned long long)__atomic_load_n(&frees, __ATOMIC_RELAXED),
                          (unsigned long long)__atomic_load_n(&faults, __ATOMIC_RELAXED));
    if (length < 0) return;
    if ((size_t)length >= sizeof line) length = sizeof line - 1;

    const char *pattern = getenv("PARAMD_ALLOC_REPORT");
    if (pattern == NULL || pattern[0] == '\0') {
        (void)!write(2, line, (size_t)length);
        return;
    }
    char path[4096];
    size_t out = 0;
    for (const char *p = pattern; *p != '\0' && out + 24 < sizeof path; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            out += (size_t)snprintf(path + out, sizeof path - out, "%d", (int)getpid());
            p++;
        } else {
            path[out++] = *p;
        }
    }
    path[out] = '\0';
    char temporary[4160];
    snprintf(temporary, sizeof temporary, "%s.tmp%d", path, (int)getpid());

    pthread_mutex_lock(&report_lock);
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t written = write(fd, line, (size_t)length);
        close(fd);
        if (written == length) rename(temporary, path);
        else unlink(temporary);
    }
    pthread_mutex_unlock(&report_lock);
}

static void *interval_reporter(void *arg) {
    double seconds = *(double *)arg;
    struct timespec interval = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    for (;;) {
        nanosleep(&interval, NULL);  // sleep: the report interval itself (PARAMD_ALLOC_REPORT_INTERVAL): a timer, time is the point
        alloccount_report();
    }
    return NULL;
}

static void start_interval_reporter(void) {
    static int started;
    static double seconds;
    const char *text = getenv("PARAMD_ALLOC_REPORT_INTERVAL");
    if (text == NULL || __atomic_exchange_n(&started, 1, __ATOMIC_RELAXED)) return;
    seconds = strtod(text, NULL);
    if (!(seconds >= 0.01)) return;
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_create(&thread, &attributes, interval_reporter, &seconds);
    pthread_attr_destroy(&attributes);
}

__attribute__((constructor)) static void alloccount_init(void) {
    const char *text = getenv("PARAMD_ALLOC_ABORT");
    __atomic_store_n(&abort_on_allocation, text != NULL && strcmp(text, "1") == 0,
                     __ATOMIC_RELAXED);
}

__attribute__((destructor)) static void alloccount_fini(void) {
    if (__atomic_load_n(&registered, __ATOMIC_RELAXED)) alloccount_report();
}
