#!/usr/bin/env python3
"""How many memory pages an idle period of paramd touches, beside cfloor's.

    scripts/pages-per-period.py [--paramd BIN] [--cfloor BIN] [--period 256] [--trials 7]

Starts two private dummy JACK servers (`jackd -n <unique> -R -d dummy -r 48000 -p PERIOD`),
paramd on one and cfloor (Benchmarks/cfloor) on the other, lets them settle, then, --trials
times: clears the referenced bits of every page of both processes (`/proc/PID/clear_refs`,
"1"), waits 100 ms, and reads how many pages of each mapping were referenced since
(`/proc/PID/smaps`, "Referenced:"). Idle, only the JACK process thread of either runs (the
other threads sleep: `make bench-process`, wake-ups), so that is what a period touches: its
code, its data, JACK's shared memory, libjack's and libc's code. Prints the median of the
trials by kind of mapping (their range beside it), and each process's total.

Why it matters (docs/PERFORMANCE.md, "Cold memory"): on a VM the JACK thread's cost
a period is mostly first touches after a sleep, about 0.2 µs a page, so the pages a period
touches beyond cfloor's are most of paramd's CPU beyond cfloor's. Per mapping, not per page:
this kernel has no page-idle tracking and no soft-dirty bits; which lines of which pages are
touched was found with `valgrind --tool=lackey --trace-mem=yes` (the section above says how).
"""
import argparse, importlib.util, os, re, signal, socket, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def kind(name, own):
    base = os.path.basename(name)
    if name == own: return "own code and data"
    if base == "[heap]": return "heap"
    if base.startswith("jack-") or base.startswith("jack_sem"): return "JACK shared memory"
    if base.startswith("libjack"): return "libjack"
    if base.startswith("libc.") or base.startswith("libm."): return "libc"
    if base in ("[anon]", "[stack]"): return "stacks and other anonymous"
    return "other (vdso, ld.so, ...)"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def referenced(pid, own):
    pages = {}
    current = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                parts = line.split()
                current = kind(parts[5] if len(parts) > 5 else "[anon]", own)
            elif line.startswith("Referenced:"):
                pages[current] = pages.get(current, 0) + int(line.split()[1]) // 4
    return pages


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--paramd", default=None, help="paramd binary (default: the release build)")
    parser.add_argument("--cfloor", default=os.path.join(ROOT, ".build-tools", "cfloor"))
    parser.add_argument("--period", type=int, default=256)
    parser.add_argument("--trials", type=int, default=9)
    parser.add_argument("--ramping", action="store_true",
                        help="all five ramping, as in `make bench-process` (a new 0.25 s linear ramp every 0.25 s); "
                             "windows of 50 ms, so that most hold no wake-up of the threads that take the messages")
    args = parser.parse_args()
    paramd = args.paramd or os.path.join(subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT,
                                                        capture_output=True, text=True, check=True).stdout.strip(), "paramd")
    paramd, cfloor = os.path.realpath(paramd), os.path.realpath(args.cfloor)
    work = tempfile.mkdtemp(prefix="paramd-pages-")
    env = dict(os.environ, JACK_NO_START_SERVER="1", XDG_CONFIG_HOME=os.path.join(work, "config"),
               XDG_STATE_HOME=os.path.join(work, "state"))
    tag = f"pages{os.getpid()}"
    procs = []

    def start(argv, log):
        p = subprocess.Popen(argv, stdout=open(os.path.join(work, log), "w"), stderr=subprocess.STDOUT, env=env,
                             stdin=subprocess.DEVNULL)
        procs.append(p)
        return p
    try:
        for side in "ab":
            start(["jackd", "-n", f"{tag}{side}", "-R", "-d", "dummy", "-r", "48000", "-p", str(args.period)], f"jackd-{side}.log")
        time.sleep(1.5)
        ports = {"paramd": free_port(), "cfloor": free_port()}
        clients = {
            "paramd": (start([paramd, "--server", f"{tag}a", "--name", "paramd-pages", "--port", str(ports["paramd"]), "--http-port", "0",
                              "--no-state"], "paramd.log"), paramd),
            "cfloor": (start([cfloor, "-s", f"{tag}b", "-n", "cfloor", "-p", str(ports["cfloor"])], "cfloor.log"), cfloor),
        }
        time.sleep(4)
        for name, (p, _) in clients.items():
            if p.poll() is not None:
                sys.exit(f"{name} exited:\n" + open(os.path.join(work, f"{name}.log")).read())
        driver = None
        if args.ramping:
            spec = importlib.util.spec_from_file_location("bench_process", os.path.join(ROOT, "scripts", "bench-process.py"))
            bench = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(bench)
            driver = bench.Driver([("paramd", ports["paramd"]), ("cfloor", ports["cfloor"])])
            driver.start()
            time.sleep(1)
        window = 0.05 if args.ramping else 0.1
        trials = {name: [] for name in clients}
        for trial in range(args.trials + 1):
            for p, _ in clients.values():
                with open(f"/proc/{p.pid}/clear_refs", "w") as f: f.write("1")
            time.sleep(window)
            for name, (p, own) in clients.items():
                if trial > 0:  # the first clear is a warm-up: what it finds was touched over seconds
                    trials[name].append(referenced(p.pid, own))
        if driver: driver.stop()
        kinds = sorted({k for runs in trials.values() for r in runs for k in r})
        # The median of the trials, the range beside it: a kernel's DAMON (kdamond) clears
        # accessed bits too, so a trial can miss pages, and a wake-up of another thread (an
        # xrun's notification, a duty) can add some.
        print(f"Pages {'a ramping' if args.ramping else 'an idle'} period touches at {args.period} frames "
              f"(median of {args.trials} trials of {window * 1000:g} ms [range]):")
        print(f"| mapping | paramd | cfloor |\n| --- | ---: | ---: |")
        def cell(values):
            return f"{statistics.median(values):g} [{min(values)}–{max(values)}]"
        for k in kinds:
            print(f"| {k} | " + " | ".join(cell([r.get(k, 0) for r in trials[n]]) for n in clients) + " |")
        print("| **all** | " + " | ".join(cell([sum(r.values()) for r in trials[n]]) for n in clients) + " |")
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()


if __name__ == "__main__":
    main()
