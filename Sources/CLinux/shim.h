#ifndef PARAMD_CLINUX_SHIM_H
#define PARAMD_CLINUX_SHIM_H
// Linux calls the Glibc module does not import: eventfd, signalfd, ppoll, the thread name, gettid.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <signal.h>
#include <unistd.h>

/// prctl is variadic; Swift cannot call it. Names the calling thread (at most 15 bytes).
static inline int paramd_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

/// The calling thread's kernel id (glibc 2.36 has gettid, but not in what Swift imports).
static inline int paramd_gettid(void) { return (int)syscall(SYS_gettid); }

/// ppoll with a nanosecond timeout (NULL: none), the signal mask left as it is.
static inline int paramd_ppoll(struct pollfd *fds, nfds_t count, const struct timespec *timeout) {
    return ppoll(fds, count, timeout, NULL);
}

#endif
