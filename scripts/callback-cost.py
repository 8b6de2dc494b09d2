#!/usr/bin/env python3
"""What paramd's JACK process callback costs beside cfloor's, in time-stamp-counter ticks.

    scripts/callback-cost.py [--paramd BIN] [--cfloor BIN] [--period 64] [--rounds 6] [--seconds 10] [--idle]

Each round starts two private dummy JACK servers (`jackd -n <unique> -R -d dummy -r 48000`),
paramd on one and cfloor (Benchmarks/cfloor) on the other, each pinned with its server to a
CPU of its own (swapped every round, as `make bench-process` does), both with
Benchmarks/cbtime preloaded: it times each call of the process callback with `rdtscp`, from
the callback's first instruction to its return. Both are driven as in `make bench-process`'s
ramping scenario (all five ramping, a new 0.25 s linear ramp every 0.25 s; --idle: nothing
moves) and, after 3 s to settle, the same number of callbacks (--seconds of periods) is
counted on both sides. Prints each round's median ticks a callback and the ratio, and the
median of the rounds' ratios.

Why: the process CPU that `make bench-process` compares is mostly the kernel's context switch
into the JACK thread and back, the same for any client and on a shared VM far noisier than the
callback itself; the callback's own cost is what paramd's code decides. A round's median is
over thousands of periods, so two rounds of the same builds agree within a few per cent.
"""
import argparse, importlib.util, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE_RATE = 48000
SETTLE_SECONDS = 3


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_process", os.path.join(ROOT, "scripts", "bench-process.py"))
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def read_report(path):
    values = {}
    with open(path) as f:
        for line in f:
            key, value = line.split()
            values[key] = int(value)
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("--paramd", default=None, help="paramd binary (default: the release build)")
    parser.add_argument("--cfloor", default=None, help="cfloor binary (default: built from Benchmarks/cfloor)")
    parser.add_argument("--period", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=10, help="seconds of periods counted a round")
    parser.add_argument("--idle", action="store_true", help="nothing moves (default: all five ramping)")
    args = parser.parse_args()

    tools = os.path.join(ROOT, ".build-tools")
    os.makedirs(tools, exist_ok=True)
    shim = os.path.join(tools, "cbtime.so")
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-shared", "-fPIC", "-o", shim,
                    os.path.join(ROOT, "Benchmarks", "cbtime", "cbtime.c"), "-ldl"], check=True)
    cfloor = args.cfloor or os.path.join(tools, "cfloor")
    if not args.cfloor:
        subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-o", cfloor, os.path.join(ROOT, "Benchmarks", "cfloor", "cfloor.c"),
                        os.path.join(ROOT, "Benchmarks", "cfloor", "cfloor_osc.c"), "-ljack", "-llo", "-lm", "-lpthread"], check=True)
    paramd = args.paramd or os.path.join(subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT,
                                                        capture_output=True, text=True, check=True).stdout.strip(), "paramd")
    bench = load_bench()
    work = tempfile.mkdtemp(prefix="paramd-callback-")
    per_second = SAMPLE_RATE / args.period
    skip, count = int(SETTLE_SECONDS * per_second), int(args.seconds * per_second)
    ratios, mean_ratios = [], []
    print(f"{'ramping' if not args.idle else 'idle'}, {args.period} frames: ticks a callback (median over {count} periods a round)")
    for round_ in range(args.rounds):
        procs = []
        tag = f"cb{os.getpid()}r{round_}"
        cpus = {"paramd": round_ % 2, "cfloor": 1 - round_ % 2}
        outs = {side: os.path.join(work, f"{side}-{round_}.txt") for side in cpus}
        env = dict(os.environ, JACK_NO_START_SERVER="1", XDG_CONFIG_HOME=os.path.join(work, "config"),
                   XDG_STATE_HOME=os.path.join(work, "state"))

        def start(argv, log, extra=None):
            p = subprocess.Popen(argv, stdout=open(os.path.join(work, log), "w"), stderr=subprocess.STDOUT,
                                 env=dict(env, **(extra or {})), stdin=subprocess.DEVNULL)
            procs.append(p)
            return p
        driver = None
        try:
            for side, cpu in cpus.items():
                start(["taskset", "-c", str(cpu), "jackd", "-n", f"{tag}{side}", "-R", "-d", "dummy", "-r", str(SAMPLE_RATE),
                       "-p", str(args.period)], f"jackd-{side}-{round_}.log")
            for side in cpus:
                subprocess.run(["jack_wait", "-s", f"{tag}{side}", "-w", "-t", "10"], check=True, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            ports = {side: bench.free_port() for side in cpus}
            clients = {}
            for side, cpu in cpus.items():
                extra = {"LD_PRELOAD": shim, "CBTIME_OUT": outs[side], "CBTIME_SKIP": str(skip), "CBTIME_COUNT": str(count)}
                argv = ([paramd, "--server", f"{tag}{side}", "--name", "paramd-cb", "--port", str(ports[side]),
                         "--http-port", "0", "--no-state"] if side == "paramd"
                        else [cfloor, "-s", f"{tag}{side}", "-n", "cfloor", "-p", str(ports[side])])
                clients[side] = start(["taskset", "-c", str(cpu)] + argv, f"{side}-{round_}.log", extra)
            if not args.idle:
                driver = bench.Driver([("paramd", ports["paramd"]), ("cfloor", ports["cfloor"])])
                driver.start()
            time.sleep(SETTLE_SECONDS + args.seconds + 1)
            for side, p in clients.items():
                if p.poll() is not None:
                    sys.exit(f"{side} exited:\n" + open(os.path.join(work, f"{side}-{round_}.log")).read())
        finally:
            if driver:
                driver.stop()
            for p in reversed(procs):
                bench.stop(p, f"pid {p.pid}", timeout=10)  # SIGTERM, SIGKILL only if stuck
        reports = {side: read_report(outs[side]) for side in cpus}
        for side, r in reports.items():
            if r["n"] < count:
                sys.exit(f"{side} counted {r['n']} callbacks of {count} (round {round_ + 1}): a gap, not a figure")
        ratio = reports["paramd"]["q0.50"] / reports["cfloor"]["q0.50"]
        means = {side: r["total"] / r["n"] for side, r in reports.items()}
        ratios.append(ratio)
        mean_ratios.append(means["paramd"] / means["cfloor"])
        quartiles = {side: f"{r['q0.50']} [{r['q0.25']}–{r['q0.75']}, 99 % {r['q0.99']}] mean {means[side]:.0f}"
                     for side, r in reports.items()}
        print(f"  round {round_ + 1} (paramd on CPU {cpus['paramd']}): paramd {quartiles['paramd']}, "
              f"cfloor {quartiles['cfloor']}: median {ratio:.3f}×, mean {mean_ratios[-1]:.3f}×", flush=True)
    print(f"paramd/cfloor, median of {args.rounds} rounds: {statistics.median(ratios):.3f}× "
          f"(rounds {min(ratios):.3f}–{max(ratios):.3f}); of the means: {statistics.median(mean_ratios):.3f}× "
          f"(rounds {min(mean_ratios):.3f}–{max(mean_ratios):.3f})")


if __name__ == "__main__":
    main()
