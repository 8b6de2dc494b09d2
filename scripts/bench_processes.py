"""The processes bench-process.py starts and measures: JACK servers and clients, started and
stopped with SIGTERM, and their cost read from /proc. Python 3 standard library only."""
import os
import re
import signal
import socket
import subprocess
import sys
import time

from osc_codec import osc_message

SAMPLE_RATE = 48000
TICKS = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- processes

class Stopped(Exception):
    pass


def on_sigterm(_signum, _frame):
    raise Stopped()


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


def stop(process, what, timeout=30):
    """SIGTERM, then wait; SIGKILL only if it is stuck."""
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        print(f"warning: {what} (pid {process.pid}) ignored SIGTERM for {timeout} s; SIGKILL", file=sys.stderr)
        process.kill()
        process.wait()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ping(port, timeout=10):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.settimeout(0.2)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            s.sendto(osc_message("/ping"), ("127.0.0.1", port))
            try:
                if s.recv(1024).startswith(b"/pong\0"):
                    return
            except socket.timeout:
                pass
        raise RuntimeError(f"no /pong from port {port}")
    finally:
        s.close()


class JackServer:
    def __init__(self, name, period, workdir, cpu=None):
        self.name = name
        self.log_path = os.path.join(workdir, f"{name}.log")
        self.env = dict(os.environ, JACK_NO_AUDIO_RESERVATION="1", JACK_NO_START_SERVER="1")
        self.process = subprocess.Popen(
            pinned(cpu) + ["jackd", "-n", name, "-R", "-d", "dummy", "-r", str(SAMPLE_RATE), "-p", str(period)],
            stdin=subprocess.DEVNULL, stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT, env=self.env)
        subprocess.run(["jack_wait", "-s", name, "-w", "-t", "10"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)

    def log_size(self):
        return os.path.getsize(self.log_path)

    def xruns(self, start, end):
        """Xruns the server printed between two log offsets, each one it notified its clients
        of: a client not finished (or finished late) at the cycle's end, the driver's own
        thread woken late; and messages it lost (its ring of messages overran)."""
        with open(self.log_path, "rb") as f:
            f.seek(start)
            text = f.read(end - start).decode(errors="replace")
        late_client = len(re.findall(r"JackEngine::XRun: client (= .* was not finished|.* finished after current callback)", text))
        late_driver = len(re.findall(r"JackTimedDriver::Process XRun", text))
        lost = sum(int(n) for n in re.findall(r"WARNING: (\d+) message buffer overruns", text))
        return {"total": late_client + late_driver, "late_client": late_client, "late_driver": late_driver,
                "lost_messages": lost}

    def stop(self):
        stop(self.process, f"jackd {self.name}")


def pinned(cpu):
    """The command prefix that keeps a process (and the threads it starts) on one CPU."""
    return [] if cpu is None else ["taskset", "-c", str(cpu)]


def start_client(kind, flavour, binary, server, port, workdir, round_, cpu=None):
    log_path = os.path.join(workdir, f"{kind}-{round_ + 1}.log")
    home = os.path.join(workdir, f"{kind}-{round_ + 1}")
    env = dict(os.environ, JACK_NO_START_SERVER="1", XDG_CONFIG_HOME=os.path.join(home, "config"),
               XDG_STATE_HOME=os.path.join(home, "state"))
    if flavour == "paramd":
        argv = [binary, "--server", server, "--name", "paramd-bench", "--port", str(port), "--http-port", "0", "--no-state"]
    else:
        argv = [binary, "-s", server, "-n", "cfloor", "-p", str(port)]
    process = subprocess.Popen(pinned(cpu) + argv, stdin=subprocess.DEVNULL, stdout=open(log_path, "w"),
                               stderr=subprocess.STDOUT, env=env)

    def ready():
        if process.poll() is not None:
            raise RuntimeError(f"{kind} exited:\n" + open(log_path).read())
        return "ready:" in open(log_path).read()
    wait_for(ready, 30, f"{kind} to be ready")
    ping(port)
    return process


# ---------------------------------------------------------------- /proc

def read(path):
    with open(path) as f:
        return f.read()


def snapshot(pid):
    """CPU ticks of the process, and per thread its name, context switches, on-CPU ns and
    whether it runs under a realtime policy; the process's RssAnon (KiB)."""
    stat = read(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            status = read(f"/proc/{pid}/task/{tid}/status")
            involuntary = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("nonvoluntary_ctxt_switches"))
            switches = sum(int(line.split()[1]) for line in status.splitlines() if "ctxt_switches" in line)
            tstat = read(f"/proc/{pid}/task/{tid}/stat").rsplit(")", 1)[1].split()
            threads[int(tid)] = {
                "name": read(f"/proc/{pid}/task/{tid}/comm").strip(),
                "switches": switches,
                "involuntary": involuntary,
                "ns": int(read(f"/proc/{pid}/task/{tid}/schedstat").split()[0]),
                "realtime": int(tstat[38]) in (1, 2),  # policy: SCHED_FIFO, SCHED_RR
            }
        except (FileNotFoundError, ProcessLookupError):
            continue  # the thread ended meanwhile
    rss = next(int(line.split()[1]) for line in read(f"/proc/{pid}/status").splitlines() if line.startswith("RssAnon:"))
    return {"time": time.monotonic(), "ticks": int(stat[11]) + int(stat[12]), "threads": threads, "rss_anon_kib": rss}


def measure(before, after):
    seconds = after["time"] - before["time"]
    threads = {}
    for tid, t in after["threads"].items():
        b = before["threads"].get(tid, {"switches": 0, "involuntary": 0, "ns": 0})  # born in the window: counts whole
        threads[tid] = {"name": t["name"], "realtime": t["realtime"],
                        "wakeups_per_s": (t["switches"] - b["switches"]) / seconds,
                        "involuntary_per_s": (t["involuntary"] - b["involuntary"]) / seconds,
                        "cpu_percent": 100 * (t["ns"] - b["ns"]) / 1e9 / seconds}
    return {
        "seconds": seconds,
        "cpu_percent_stat": 100 * (after["ticks"] - before["ticks"]) / TICKS / seconds,
        "cpu_percent": sum(t["cpu_percent"] for t in threads.values()),
        "wakeups_per_s": sum(t["wakeups_per_s"] for t in threads.values()),
        "rss_anon_kib": after["rss_anon_kib"],
        "threads": threads,
    }
