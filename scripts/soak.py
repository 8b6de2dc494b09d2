#!/usr/bin/env python3
"""Soak test: paramd under a flood of OSC messages (docs/PERFORMANCE.md, "Soak").

    scripts/soak.py --bin .build/release/paramd [--seconds 10] [--rates "20000 50000"]

1. Starts a private JACK server: jackd -R -d dummy -r 48000 -p 64.
2. Idle baseline: counts the xruns the server reports to a monitor client (ctypes on libjack)
   over as long as the paramd run will take, with paramd not running: the dummy driver
   reports a few on a shared machine even when idle.
3. Starts paramd, subscribes 32 listeners (a child process, one UDP socket each, `/*` at the
   default rate), then floods paramd with animation messages to every parameter (so every
   parameter keeps animating) at each rate in turn for --seconds, from one UDP socket:
   pre-encoded messages, `send` in a paced loop.
4. Reports per phase: the rate reached, xruns (monitor and paramd's /status), /status dropped
   (with its breakdown), late and errors, paramd's CPU (from /proc), JACK's DSP load, and the
   feedback the listeners received.

Python 3 standard library only. Everything it starts is stopped (SIGTERM, waited for).
"""
import argparse
import ctypes
import json
import os
import random
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

from osc_codec import osc_decode, osc_message

PARAMS = [("volume", 0.0, 1.0), ("tone", 0.0, 1.0), ("frequency", 20.0, 20000.0), ("pan", -1.0, 1.0), ("input", 0.0, 1.0)]
CURVES = ["linear", "default", "easeInEaseOut", "easeOutBack", "cubic-bezier(0.1,0.7,0.9,0.2)", "steps(4)", "curve(-3)"]


# ---------------------------------------------------------------- OSC, the little we need

def osc_parse(data):
    """(address, [args]) of a message; None for anything else."""
    try:
        return osc_decode(data)
    except (ValueError, struct.error, UnicodeDecodeError):
        return None


def count_messages(data):
    """Messages in a datagram: 1, or those of a bundle of feedback, counted by their type tag
    strings at C speed (values are ",f", /done ",i" or ",ii")."""
    if not data.startswith(b"#bundle\0"):
        return 1
    return data.count(b",f\0\0") + data.count(b",i\0\0") + data.count(b",ii\0")


# ---------------------------------------------------------------- JACK monitor (ctypes)

class JackMonitor:
    """A JACK client that counts the xruns the server reports and reads its DSP load."""

    def __init__(self, server):
        os.environ["JACK_DEFAULT_SERVER"] = server
        os.environ["JACK_NO_START_SERVER"] = "1"
        self.lib = ctypes.CDLL("libjack.so.0")
        self.lib.jack_client_open.restype = ctypes.c_void_p
        self.lib.jack_cpu_load.restype = ctypes.c_float
        self.lib.jack_cpu_load.argtypes = [ctypes.c_void_p]
        status = ctypes.c_int(0)
        self.client = self.lib.jack_client_open(b"soak-monitor", 1, ctypes.byref(status))  # JackNoStartServer
        if not self.client:
            raise RuntimeError(f"cannot open a JACK client on {server} (status {status.value})")
        self.xruns = 0
        callback_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)

        def on_xrun(_arg):
            self.xruns += 1
            return 0

        self.callback = callback_type(on_xrun)  # kept alive as long as the client
        self.lib.jack_set_xrun_callback(ctypes.c_void_p(self.client), self.callback, None)
        if self.lib.jack_activate(ctypes.c_void_p(self.client)) != 0:
            raise RuntimeError("jack_activate failed")

    def dsp_load(self):
        return self.lib.jack_cpu_load(self.client)

    def close(self):
        self.lib.jack_deactivate(ctypes.c_void_p(self.client))
        self.lib.jack_client_close(ctypes.c_void_p(self.client))


# ---------------------------------------------------------------- processes

def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.02)


def stop(process, timeout=30):
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        print(f"warning: pid {process.pid} ignored SIGTERM for {timeout} s; SIGKILL", file=sys.stderr)
        process.kill()
        process.wait()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- listeners (a child process)

def run_listeners(count, paramd_port, rate, ready_fd, done_fd):
    """Child: `count` sockets each subscribed to /*; counts what arrives until told to stop."""
    sockets = []
    selector = selectors.DefaultSelector()
    for _ in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.bind(("127.0.0.1", 0))
        s.setblocking(False)
        s.sendto(osc_message("/subscribe", "/*", float(rate)), ("127.0.0.1", paramd_port))
        selector.register(s, selectors.EVENT_READ)
        sockets.append(s)
    selector.register(done_fd, selectors.EVENT_READ)
    datagrams = messages = done = 0
    subscribed = 0
    os.write(ready_fd, b"r")
    running = True
    while running:
        for key, _ in selector.select(1.0):
            if key.fileobj == done_fd:
                running = False
                continue
            s = key.fileobj
            while True:
                try:
                    data = s.recv(65536)
                except BlockingIOError:
                    break
                datagrams += 1
                messages += count_messages(data)
                if data.startswith(b"/subscribed"):
                    subscribed += 1
                elif b"/done\0" in data[:20]:
                    done += 1
    result = json.dumps({"datagrams": datagrams, "messages": messages, "subscribed": subscribed}).encode()
    os.write(ready_fd, result)
    os._exit(0)


# ---------------------------------------------------------------- the soak

class Paramd:
    def __init__(self, binary, server, port, log):
        self.port = port
        self.log = log
        self.process = subprocess.Popen(
            [binary, "--server", server, "--name", "paramd-soak", "--port", str(port), "--http-port", "0", "--max-subscribers", "64"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self.query = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.query.bind(("127.0.0.1", 0))
        self.query.settimeout(2)
        wait_for(lambda: self.process.poll() is not None or "ready:" in open(log.name).read(), 20, "paramd to be ready")
        if self.process.poll() is not None:
            raise RuntimeError("paramd exited:\n" + open(log.name).read())

    def status(self):
        for _ in range(5):
            self.query.sendto(osc_message("/status"), ("127.0.0.1", self.port))
            try:
                while True:
                    parsed = osc_parse(self.query.recv(65536))
                    if parsed and parsed[0] == "/status":
                        args = parsed[1]
                        return dict(zip(args[0::2], args[1::2]))
            except socket.timeout:
                continue
        raise RuntimeError("no /status reply")


def flood(port, rate, seconds, messages):
    """Sends `messages` round-robin at `rate` per second for `seconds`; returns (sent, elapsed)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    s.connect(("127.0.0.1", port))
    send = s.send
    n = len(messages)
    sent = 0
    clock = time.perf_counter
    start = clock()
    end = start + seconds
    blocked = 0
    while True:
        now = clock()
        if now >= end:
            break
        due = int((now - start) * rate)
        if sent >= due:
            time.sleep(0.0002)
            continue
        # Catch up in one go (bounded, so the clock is read often enough to pace).
        stop_at = min(due, sent + 2000)
        while sent < stop_at:
            try:
                send(messages[sent % n])
            except BlockingIOError:
                blocked += 1
                break
            sent += 1
    elapsed = clock() - start
    s.close()
    return sent, elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=".build/release/paramd")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rates", default="20000 50000")
    parser.add_argument("--subscribers", type=int, default=32)
    parser.add_argument("--subscriber-rate", type=float, default=60)
    parser.add_argument("--period", type=int, default=64)
    parser.add_argument("--sample-rate", type=int, default=48000)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    rates = [int(r) for r in args.rates.split()]
    run_seconds = args.seconds * len(rates)

    server = f"paramd-soak-{os.getpid()}"
    workdir = tempfile.mkdtemp(prefix="paramd-soak-")
    jackd = paramd = None
    monitor = None
    listener_pid = None
    report = {"command": " ".join(sys.argv), "server": f"jackd -R -d dummy -r {args.sample_rate} -p {args.period}",
              "subscribers": args.subscribers, "subscriber_rate": args.subscriber_rate, "phases": []}
    try:
        env = dict(os.environ, JACK_NO_AUDIO_RESERVATION="1", JACK_NO_START_SERVER="1")
        jackd = subprocess.Popen(["jackd", "-n", server, "-R", "-t", "2000", "-d", "dummy",
                                  "-r", str(args.sample_rate), "-p", str(args.period)],
                                 stdin=subprocess.DEVNULL, stdout=open(f"{workdir}/jackd.log", "w"),
                                 stderr=subprocess.STDOUT, env=env)
        subprocess.run(["jack_wait", "-s", server, "-w", "-t", "10"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        monitor = JackMonitor(server)

        # Idle baseline, as long as the paramd run.
        time.sleep(1)
        x0 = monitor.xruns
        print(f"idle baseline: {run_seconds:.0f} s without paramd …", flush=True)
        time.sleep(run_seconds)
        report["baseline"] = {"seconds": run_seconds, "xruns": monitor.xruns - x0, "dsp_load": monitor.dsp_load()}
        print(f"  xruns {report['baseline']['xruns']}", flush=True)

        port = free_port()
        log = open(f"{workdir}/paramd.log", "w")
        paramd = Paramd(args.bin, server, port, log)

        # Listeners in a child process, so receiving does not compete with sending for the GIL.
        ready_r, ready_w = os.pipe()
        done_r, done_w = os.pipe()
        listener_pid = os.fork()
        if listener_pid == 0:
            os.close(ready_r)
            os.close(done_w)
            run_listeners(args.subscribers, port, args.subscriber_rate, ready_w, done_r)
        os.close(ready_w)
        os.close(done_r)
        os.read(ready_r, 1)
        wait_for(lambda: paramd.status().get("subscribers") == args.subscribers, 10, "the subscribers")

        # Pre-encoded animation messages to every parameter, round-robin.
        rng = random.Random(1)
        messages = []
        for i in range(4096):
            name, low, high = PARAMS[i % len(PARAMS)]
            target = rng.uniform(low, high) if name != "frequency" else 20.0 * 1000 ** rng.random()
            messages.append(osc_message(f"/{name}", float(target), rng.uniform(0.02, 0.5), rng.choice(CURVES)))

        for rate in rates:
            before = paramd.status()
            x0 = monitor.xruns
            c0, t0 = cpu_seconds(paramd.process.pid), time.monotonic()
            print(f"flood: {rate} messages/s for {args.seconds:.0f} s …", flush=True)
            sent, elapsed = flood(port, rate, args.seconds, messages)
            c1, t1 = cpu_seconds(paramd.process.pid), time.monotonic()
            load = monitor.dsp_load()
            time.sleep(0.5)  # let the queues drain before counting
            after = paramd.status()
            delta = {k: after[k] - before[k] for k in after if isinstance(after[k], int) and k not in ("sample_rate", "buffer_size", "subscribers")}
            phase = {
                "target_rate": rate, "sent": sent, "seconds": round(elapsed, 3), "achieved_rate": round(sent / elapsed),
                "xruns_monitor": monitor.xruns - x0, "xruns_paramd": delta["xruns"],
                "dropped": delta["dropped"], "dropped_commands": delta["dropped_commands"],
                "dropped_events": delta["dropped_events"], "dropped_packets": delta["dropped_packets"],
                "dropped_feedback": delta["dropped_feedback"], "late": delta["late"], "errors": delta["errors"],
                "paramd_cpu_percent": round(100 * (c1 - c0) / (t1 - t0), 1), "dsp_load_percent": round(load, 1),
                "animations": after["animations"], "subscribers": after["subscribers"],
            }
            report["phases"].append(phase)
            print("  " + " ".join(f"{k}={v}" for k, v in phase.items()), flush=True)

        os.write(done_w, b"x")
        received = json.loads(os.read(ready_r, 4096).decode())
        os.waitpid(listener_pid, 0)
        listener_pid = None
        report["listeners"] = received
        print(f"listeners: {received}")
    finally:
        if listener_pid:
            os.kill(listener_pid, signal.SIGKILL)
            os.waitpid(listener_pid, 0)
        if paramd:
            stop(paramd.process)
        if monitor:
            monitor.close()
        stop(jackd)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
