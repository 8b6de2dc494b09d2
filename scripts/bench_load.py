"""The load bench-process.py puts on both clients over OSC: the ramps every 0.25 s (Driver) and
the subscribers in a child process (Listeners). Python 3 standard library only."""
import json
import os
import selectors
import signal
import socket
import threading
import time

from osc_codec import osc_message

# Two targets per parameter; every 0.25 s each parameter ramps to the other one.
RAMPS = [("volume", 0.6, 0.9), ("tone", 0.3, 0.6), ("frequency", 330.0, 660.0), ("pan", -0.5, 0.5), ("input", 0.5, 0.9)]
RAMP_SECONDS = 0.25


# ---------------------------------------------------------------- the ramps

def ramp_messages(flavour, phase):
    """The five messages of one tick (phase 0 or 1) for `paramd` or `cfloor`."""
    out = []
    for name, a, b in RAMPS:
        value = float(b if phase else a)
        if flavour == "paramd":
            extra = ("domain", "linear") if name == "frequency" else ()
            out.append(osc_message(f"/{name}", value, RAMP_SECONDS, "linear", *extra))
        else:
            out.append(osc_message(f"/{name}", value, RAMP_SECONDS))
    return out


# ---------------------------------------------------------------- load

class Driver(threading.Thread):
    """Every 0.25 s, the five ramps to both clients (the same tick, the same values)."""

    def __init__(self, targets):
        super().__init__(daemon=True)
        self.targets = targets  # [(flavour, port)]
        self.halt = threading.Event()
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.ticks = 0

    def run(self):
        batches = {(flavour, phase): ramp_messages(flavour, phase) for flavour, _ in self.targets for phase in (0, 1)}
        start = time.monotonic()
        while not self.halt.is_set():
            phase = self.ticks % 2
            # Who is sent to first takes turns: the second client's messages are all there
            # when it wakes, the first's may still be arriving (one wake or two a tick).
            order = self.targets if (self.ticks // 2) % 2 == 0 else self.targets[::-1]
            for flavour, port in order:
                for m in batches[(flavour, phase)]:
                    self.socket.sendto(m, ("127.0.0.1", port))
            self.ticks += 1
            self.halt.wait(max(0.0, start + self.ticks * RAMP_SECONDS - time.monotonic()))

    def stop(self):
        self.halt.set()
        self.join()
        self.socket.close()


class Listeners:
    """A child process with `count` UDP sockets per port, each subscribed to '/*' at `rate`,
    reading and discarding what arrives; counts datagrams per port between marks."""

    def __init__(self, ports, count, rate):
        self.ports = ports
        self.control_r, control_w = os.pipe()   # parent → child: 'm' (mark), 'q' (quit)
        report_r, self.report_w = os.pipe()     # child → parent: a JSON line per request
        self.pid = os.fork()
        if self.pid == 0:
            os.close(report_r)
            os.close(control_w)
            self._child(count, rate, self.control_r, self.report_w)
        os.close(self.control_r)
        os.close(self.report_w)
        self.control_w = control_w
        self.report = os.fdopen(report_r)
        json.loads(self.report.readline())  # subscribed

    def _child(self, count, rate, control_fd, report_fd):
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            selector = selectors.DefaultSelector()
            received = {}
            for port in self.ports:
                received[port] = 0
                for _ in range(count):
                    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
                    s.bind(("127.0.0.1", 0))
                    s.setblocking(False)
                    s.sendto(osc_message("/subscribe", "/*", float(rate)), ("127.0.0.1", port))
                    selector.register(s, selectors.EVENT_READ, port)
            selector.register(control_fd, selectors.EVENT_READ, None)
            os.write(report_fd, b"{}\n")
            while True:
                for key, _ in selector.select():
                    if key.data is None:
                        command = os.read(control_fd, 1)
                        if command in (b"q", b""):
                            os._exit(0)
                        os.write(report_fd, (json.dumps({str(p): n for p, n in received.items()}) + "\n").encode())
                        continue
                    while True:
                        try:
                            key.fileobj.recv(65536)
                        except BlockingIOError:
                            break
                        received[key.data] += 1
        finally:
            os._exit(1)

    def mark(self):
        os.write(self.control_w, b"m")
        return {int(k): v for k, v in json.loads(self.report.readline()).items()}

    def close(self):
        try:
            os.write(self.control_w, b"q")
        except OSError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.control_w)
        self.report.close()
