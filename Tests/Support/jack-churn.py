#!/usr/bin/env python3
"""Clients that come and go, as a script that runs `jack_lsp` or `jack_connect` in a loop makes
them, with PyPI's JACK-Client (module `jack`), for StaleWakeSlotTests (Tests/README.md).

    jack-churn.py SERVER NAME UNTIL

Opens a client NAME on SERVER and closes it, again and again; the first client open once the
file UNTIL exists is closed last. Each closes once libjack has handled what the server sent it
(a close that cancels libjack's busy notification thread can hang; docs/OPERATIONS.md).
Prints `churning` once the first client is open, and `churned N` (N clients) at the end; exits 0.
"""
import fcntl
import os
import platform
import socket
import sys
import termios
import time

import jack


def notification_socket(name):
    """The descriptor libjack accepted the server's notifications on, for client NAME: bound to
    /dev/shm/jack_<name>_<euid>_0 (JACK2's BuildName; slashes become underscores)."""
    path = "/dev/shm/jack_%s_%d_0" % (name.replace("/", "_").replace("\\", "_"), os.geteuid())
    for entry in os.listdir("/proc/self/fd"):
        try:
            sock = socket.socket(fileno=int(entry))
        except OSError:
            continue
        try:
            if sock.family == socket.AF_UNIX and sock.getsockname() == path:
                return int(entry)
        except OSError:
            pass
        finally:
            sock.detach()
    return None


# read(2)'s number in /proc/<pid>/task/<tid>/syscall.
READ_SYSCALL = {"x86_64": 0, "i686": 3, "i386": 3, "armv7l": 3}.get(platform.machine(), 63)
# How long to wait for libjack's notification thread before closing anyway.
IDLE_WAIT_SECONDS = 1.0


def wait_until_notifications_handled(name):
    """Until libjack's notification thread is blocked in read(2) on its socket with nothing
    queued, or IDLE_WAIT_SECONDS passed: closing cancels that thread at any instruction, and
    cancelled while it handles a notification (holding libjack's lock) the close never returns
    (docs/OPERATIONS.md)."""
    fd = notification_socket(name)
    if fd is None:
        return
    wanted = "%d 0x%x " % (READ_SYSCALL, fd)
    deadline = time.monotonic() + IDLE_WAIT_SECONDS
    while time.monotonic() < deadline:
        try:
            queued = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
        except OSError:
            return
        if int.from_bytes(queued, sys.byteorder) == 0:
            for task in os.listdir("/proc/self/task"):
                try:
                    with open("/proc/self/task/%s/syscall" % task) as f:
                        if f.read().startswith(wanted):
                            return
                except OSError:
                    pass
        os.sched_yield()


def main():
    server, name, until = sys.argv[1], sys.argv[2], sys.argv[3]
    count = 0
    while True:
        client = jack.Client(name, servername=server, no_start_server=True)
        count += 1
        if count == 1:
            print("churning", flush=True)
        done = os.path.exists(until)
        wait_until_notifications_handled(client.name)
        client.close()
        if done:
            break
    print(f"churned {count}", flush=True)


if __name__ == "__main__":
    main()
