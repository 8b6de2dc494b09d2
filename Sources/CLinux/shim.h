#ifndef PARAMD_CLINUX_SHIM_H
#define PARAMD_CLINUX_SHIM_H
// Linux calls the Glibc module does not import: eventfd, signalfd, ppoll, the thread name, gettid,
// adjtimex.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <alloca.h>
#include <signal.h>
#include <unistd.h>

/// prctl is variadic; Swift cannot call it. Names the calling thread (at most 15 bytes).
static inline int paramd_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

/// The calling thread's kernel id (glibc 2.36 has gettid, but not in what Swift imports).
static inline int paramd_gettid(void) { return (int)syscall(SYS_gettid); }

/// Writes one byte in each page of the `bytes` of stack below the caller, so that a thread's
/// deepest call later takes no page fault on first reaching them (the JACK thread's, before its
/// first period: ProcessCallback.swift).
__attribute__((noinline)) static void paramd_touch_stack(unsigned long bytes) {
    volatile char *below = (volatile char *)alloca(bytes);
    for (unsigned long i = 0; i < bytes; i += 4096) below[i] = 0;
    below[bytes - 1] = 0;
}

/// ppoll with a nanosecond timeout (NULL: none), the signal mask left as it is.
static inline int paramd_ppoll(struct pollfd *fds, nfds_t count, const struct timespec *timeout) {
    return ppoll(fds, count, timeout, NULL);
}

/// The head of the kernel's `struct timex` (adjtimex(2)), declared here rather than through
/// <sys/timex.h>: that header pulls in <sys/select.h>, whose fd_set under _GNU_SOURCE differs
/// from the one in Swift's Glibc module, and clang can refuse the two definitions in one
/// program. The members are the kernel's own types in its order, so the layout is the
/// kernel's; `rest` covers the remaining fields with room to spare (208 bytes on LP64).
struct paramd_timex {
    unsigned int modes;
    long offset, freq, maxerror, esterror;
    int status;
    long rest[32];
};

/// The kernel clock's discipline as adjtimex(2) reports it, read only (modes 0: no privilege
/// needed). Returns adjtimex's clock state (TIME_ERROR, 5, when unsynchronised) or -1.
static inline int paramd_adjtimex_read(int *status, long *maxerror, long *esterror) {
    struct paramd_timex t = {0};
    int rc = (int)syscall(SYS_adjtimex, &t);
    *status = t.status;
    *maxerror = t.maxerror;
    *esterror = t.esterror;
    return rc;
}

/// STA_UNSYNC (0x0040 in <linux/timex.h>): the kernel clock is not synchronised.
static const int paramd_sta_unsync = 0x0040;

#endif
