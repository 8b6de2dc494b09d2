#!/usr/bin/env python3
"""Process cost of paramd against a C floor (docs/PERFORMANCE.md, "Process cost against a C
floor").

    scripts/bench-process.py [--paramd BIN] [--seconds 4] [--repeats 9] [--quick] [--periods "64 256"] [--scenarios "idle ramping"] [--json FILE]
    scripts/bench-process.py --paramd NEW --baseline OLD ...   (two paramd builds side by side)

Builds what it needs (a release paramd unless --paramd is given; Benchmarks/cfloor/cfloor.c
with gcc -O2), then for each JACK period size (64 and 256 frames at 48 kHz):

1. in each of --rounds rounds (default 12; which side starts first takes turns), starts two
   private dummy JACK servers (`jackd -n <unique> -R -d dummy -r 48000 -p PERIOD`),
   one per client, and on them paramd (`--no-state`, XDG dirs in a temporary folder) and
   cfloor, each with its own OSC port on 127.0.0.1;
2. drives both identically over OSC through three scenarios, each measured over a window of
   --seconds after a warm-up, --repeats windows in all, shared among the rounds:
   a. idle: nothing moves, no subscriber (the SPEC §3 initial state: tone 0);
   b. all five ramping: every 0.25 s each parameter gets a new target with a 0.25 s linear
      ramp (paramd `/volume ffs V 0.25 linear`, frequency with `domain linear` so both ramp in
      Hz; cfloor `/volume ff V 0.25`), the values alternating so they always move, tone on;
   c. the same plus 32 subscribers per client at 60/s (`/subscribe sf '/*' 60` from 32 UDP
      sockets each, in a child process that reads and discards what arrives);
3. measures each process over the window: CPU (utime + stime from /proc/PID/stat, in clock
   ticks, and the per-thread on-CPU nanoseconds of /proc/PID/task/TID/schedstat, which the
   ratio uses: a tick is 10 ms, 0.1 % of a core over 10 s, as much as the floor's whole idle
   cost), wake-ups per second per thread (voluntary + nonvoluntary context switches of
   /proc/PID/task/TID/status), RssAnon, and the xruns each JACK server printed;
4. prints the medians over the windows, paramd/cfloor as the geometric mean of the windows'
   own ratios, the goals and whether they are met, and (--json) writes everything.

Where they run (--pin, the default on two or more CPUs): each client and its JACK server are
pinned to one CPU (`taskset`), the two pairs to different CPUs, swapping CPUs every round. Left
to the scheduler, a client's process thread and its server's thread often sit on different
CPUs, and each period's wake-up then crosses CPUs: on a VM that can cost more than the
period's work (both clients used about 0.6 % of a core at 64 frames, ramping, instead of
0.35 % pinned), and where the scheduler puts each side changes from start to start. Unpinned,
single windows of paramd against cfloor ranged from 0.46 to 1.88, and cfloor against a copy of
itself gave window quartiles of 0.79–1.33 over 16 starts; pinned, paramd against cfloor gave
1.02–1.14 (docs/PERFORMANCE.md, "Process cost against a C floor"). --no-pin measures the scheduler's
placement instead.

Why rounds: on the benchmark's VM one start of a process costs up to 1.4× another start of
the same binary, and keeps that bias for its life (an A/A of one build against itself: 0.82 to 1.45 by
start, within ±0.1 inside one). A single start of each measures that draw, not the build, so
the windows are spread over many starts and their ratios averaged geometrically.

Goals: paramd's CPU ≤ 1.1 × the C floor's (idle and all ramping, 64 and 256 frames); paramd's
idle wake-ups (all threads) ≤ JACK periods per second + 5; paramd's RssAnon ≤ 2 MiB.

Python 3 standard library only. At most two JACK servers of its own run at once; everything it
starts is stopped with SIGTERM and waited for.
"""
import argparse
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from bench_load import RAMPS, RAMP_SECONDS, Driver, Listeners
from bench_processes import SAMPLE_RATE, JackServer, Stopped, free_port, measure, on_sigterm, read, snapshot, start_client, stop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOAL_CPU_RATIO = 1.1
GOAL_IDLE_WAKEUP_SLACK = 5
GOAL_RSS_ANON_KIB = 2048

SUBSCRIBERS = 32
SUBSCRIBER_RATE = 60.0


# ---------------------------------------------------------------- one period size

def run_period(period, args, binaries, flavours, workroot):
    """The scenarios at one period size, in --rounds rounds: each round starts both JACK servers
    and both clients afresh (which side first takes turns) and measures a share of the
    --repeats windows of each scenario (why: "Why rounds", at the top)."""
    workdir = os.path.join(workroot, f"p{period}")
    os.makedirs(workdir)
    results = {"period": period, "periods_per_s": SAMPLE_RATE / period, "scenarios": {}}
    wanted = [s for s in ("idle", "ramping", "subscribers") if s in args.scenarios.split()]
    runs = {s: [] for s in wanted}
    rounds = max(1, min(args.rounds, args.repeats))
    for round_ in range(rounds):
        windows = args.repeats // rounds + (1 if round_ < args.repeats % rounds else 0)
        run_round(period, round_, windows, wanted, runs, args, binaries, flavours, workdir)
    for scenario in wanted:
        results["scenarios"][scenario] = {"runs": runs[scenario], "median": summarise(runs[scenario])}
    return results


def run_round(period, round_, windows, wanted, runs, args, binaries, flavours, workdir):
    tag = f"bench-{os.getpid()}-{period}-{round_}"
    servers, clients, driver, listeners = {}, {}, None, None
    order = ("paramd", "cfloor") if round_ % 2 == 0 else ("cfloor", "paramd")
    try:
        ports = {}
        for i, kind in enumerate(order):
            # The side started first takes CPU 0; which side that is alternates by round.
            cpu = i if args.pin else None
            servers[kind] = JackServer(f"{tag}-{kind}", period, workdir, cpu)
            ports[kind] = free_port()
            clients[kind] = start_client(kind, flavours[kind], binaries[kind], servers[kind].name, ports[kind],
                                         workdir, round_, cpu)
        placement = f"; {order[0]} and its server on CPU 0, {order[1]} on CPU 1" if args.pin else ""
        print(f"\n{period} frames, round {round_ + 1}: paramd pid {clients['paramd'].pid}, "
              f"cfloor pid {clients['cfloor'].pid} ({order[0]} started first{placement})", flush=True)

        for scenario in wanted:
            if scenario in ("ramping", "subscribers") and driver is None:
                driver = Driver([(flavours["paramd"], ports["paramd"]), (flavours["cfloor"], ports["cfloor"])])
                driver.start()
            if scenario == "subscribers":
                listeners = Listeners([ports["paramd"], ports["cfloor"]], SUBSCRIBERS, SUBSCRIBER_RATE)
            for _ in range(windows):
                time.sleep(args.warmup)
                logs = {k: servers[k].log_size() for k in servers}
                marks = listeners.mark() if listeners else None
                before = {k: snapshot(clients[k].pid) for k in clients}
                time.sleep(args.seconds)
                after = {k: snapshot(clients[k].pid) for k in clients}
                marks_after = listeners.mark() if listeners else None
                run = {}
                for k in ("paramd", "cfloor"):
                    if clients[k].poll() is not None:
                        raise RuntimeError(f"{k} exited during the run")
                    m = measure(before[k], after[k])
                    m["xruns"] = servers[k].xruns(logs[k], servers[k].log_size())
                    if listeners:
                        m["datagrams_received_per_s"] = (marks_after[ports[k]] - marks[ports[k]]) / m["seconds"]
                    run[k] = m
                runs[scenario].append(run)
                p, c = run["paramd"], run["cfloor"]
                print(f"  {scenario:<12} #{len(runs[scenario])}: CPU paramd {p['cpu_percent']:.2f} % cfloor {c['cpu_percent']:.2f} %"
                      f" (×{p['cpu_percent'] / c['cpu_percent']:.2f}); wake-ups/s {p['wakeups_per_s']:.0f} / {c['wakeups_per_s']:.0f};"
                      f" xruns {p['xruns']['total']} / {c['xruns']['total']}", flush=True)
    finally:
        if listeners:
            listeners.close()
        if driver:
            driver.stop()
        for kind in ("paramd", "cfloor"):
            if kind in clients:
                stop(clients[kind], kind)
        for kind in ("paramd", "cfloor"):
            if kind in servers:
                servers[kind].stop()


def summarise(runs):
    """Medians over the repeats, per process and per thread (threads matched by their place in
    tid order, the order they were created in: each round starts new processes)."""
    out = {}
    for k in ("paramd", "cfloor"):
        ms = [r[k] for r in runs]
        med = lambda key: statistics.median(m[key] for m in ms)
        threads = {}
        def nth(m, i):
            tids = sorted(m["threads"], key=int)
            return m["threads"][tids[i]] if i < len(tids) else None
        for i, (tid, t) in enumerate(sorted(ms[-1]["threads"].items(), key=lambda item: int(item[0]))):
            values = [v for v in (nth(m, i) for m in ms) if v is not None and v["name"] == t["name"]]
            threads[tid] = {"name": t["name"], "realtime": t["realtime"],
                            "wakeups_per_s": statistics.median(v["wakeups_per_s"] for v in values),
                            "involuntary_per_s": statistics.median(v["involuntary_per_s"] for v in values),
                            "cpu_percent": statistics.median(v["cpu_percent"] for v in values)}
        out[k] = {
            "cpu_percent": med("cpu_percent"),
            "cpu_percent_stat": med("cpu_percent_stat"),
            "wakeups_per_s": med("wakeups_per_s"),
            "rss_anon_kib": max(m["rss_anon_kib"] for m in ms),
            "xruns": sum(m["xruns"]["total"] for m in ms),
            "threads": threads,
        }
        if "datagrams_received_per_s" in ms[0]:
            out[k]["datagrams_received_per_s"] = med("datagrams_received_per_s")
    out["ratio_of_medians"] = out["paramd"]["cpu_percent"] / out["cfloor"]["cpu_percent"]
    # Each window's own ratio (both processes measured over the same seconds): its spread says
    # how far one run's median can be trusted. Also split: the JACK threads alone, and what
    # paramd's other threads cost beyond cfloor's.
    def split(m, realtime):
        return sum(t["cpu_percent"] for t in m["threads"].values() if t["realtime"] == realtime)
    out["window_ratios"] = [r["paramd"]["cpu_percent"] / r["cfloor"]["cpu_percent"] for r in runs if r["cfloor"]["cpu_percent"]]
    out["window_jack_ratios"] = [split(r["paramd"], True) / split(r["cfloor"], True) for r in runs if split(r["cfloor"], True)]
    out["window_other_excess"] = [split(r["paramd"], False) - split(r["cfloor"], False) for r in runs]
    # The ratio the goals judge: the geometric mean of the windows' own ratios (both processes
    # measured over the same seconds), so that each round's instance bias, one way or the
    # other, cancels rather than picking which mode a median falls in (run_period).
    logs = [math.log(r) for r in out["window_ratios"] if r > 0]
    out["ratio"] = math.exp(sum(logs) / len(logs)) if logs else out["ratio_of_medians"]
    # Its 95 % interval (two standard errors of the mean log ratio), so a figure near the goal
    # says how near.
    if len(logs) >= 3:
        half = 2 * statistics.stdev(logs) / math.sqrt(len(logs))
        out["ratio_interval"] = [out["ratio"] * math.exp(-half), out["ratio"] * math.exp(half)]
    out["ratio_stat"] = (out["paramd"]["cpu_percent_stat"] / out["cfloor"]["cpu_percent_stat"]
                         if out["cfloor"]["cpu_percent_stat"] else None)
    return out


# ---------------------------------------------------------------- report

def report(results, args):
    lines = []
    say = lines.append
    say("")
    say(f"Process cost against a C floor: median of {args.repeats} × {args.seconds:g} s windows "
        f"(warm-up {args.warmup:g} s) over {min(args.rounds, args.repeats)} starts of both, {SAMPLE_RATE} Hz; "
        "paramd/cfloor: geometric mean of the windows' own ratios")
    say("placement: " + ("each client and its server pinned to a CPU of their own, swapped every round"
                         if args.pin else "left to the scheduler (--no-pin)"))
    say("CPU: % of one core from per-thread schedstat ns (stat: utime+stime in clock ticks); "
        "RssAnon: largest of the windows; xruns: summed over the windows")
    say("")
    say("| period | scenario | process | CPU % | CPU % (stat) | paramd/cfloor | wake-ups/s | RssAnon KiB | xruns |")
    say("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        for scenario, s in r["scenarios"].items():
            for k in ("paramd", "cfloor"):
                m = s["median"][k]
                ratio = f"{s['median']['ratio']:.2f}×" if k == "paramd" else ""
                say(f"| {r['period']} | {scenario} | {k} | {m['cpu_percent']:.2f} | {m['cpu_percent_stat']:.2f} | {ratio} | "
                    f"{m['wakeups_per_s']:.0f} | {m['rss_anon_kib']} | {m['xruns']} |")
    say("")
    say("Wake-ups per second by thread (median; tid name, * = realtime policy, CPU % in brackets;"
        " the involuntary switches, a busy machine's share, are in the JSON):")
    for r in results:
        for scenario, s in r["scenarios"].items():
            for k in ("paramd", "cfloor"):
                threads = s["median"][k]["threads"]
                parts = [f"{tid} {t['name']}{'*' if t['realtime'] else ''} {t['wakeups_per_s']:.0f} ({t['cpu_percent']:.2f})"
                         for tid, t in sorted(threads.items())]
                extra = ""
                if "datagrams_received_per_s" in s["median"][k]:
                    extra = f"; subscribers received {s['median'][k]['datagrams_received_per_s']:.0f} datagrams/s"
                say(f"  {r['period']:>3} {scenario:<11} {k}: " + ", ".join(parts) + extra)
    say("")
    say("Per window (paramd/cfloor in the same seconds): median [quartiles] of the whole processes, of the JACK")
    say("threads alone, and paramd's other threads beyond cfloor's (% of a core):")
    def spread(values, form):
        if not values:
            return "-"
        q = statistics.quantiles(values, n=4) if len(values) >= 4 else [min(values), statistics.median(values), max(values)]
        return f"{form.format(statistics.median(values))} [{form.format(q[0])}–{form.format(q[2])}]"
    for r in results:
        for scenario, s in r["scenarios"].items():
            m = s["median"]
            say(f"  {r['period']:>3} {scenario:<11} process {spread(m['window_ratios'], '{:.2f}')}, JACK thread "
                f"{spread(m['window_jack_ratios'], '{:.2f}')}, other threads +{spread(m['window_other_excess'], '{:.3f}')} "
                f"(n = {len(m['window_ratios'])})")
    say("")
    if args.baseline:
        say(f"A/B of two builds: the 'cfloor' rows are {args.baseline}; the goals are judged only against cfloor.")
        print("\n".join(lines), flush=True)
        return []
    say("Goals:")
    goals = []
    for r in results:
        for scenario in ("idle", "ramping"):
            if scenario in r["scenarios"]:
                ratio = r["scenarios"][scenario]["median"]["ratio"]
                interval = r["scenarios"][scenario]["median"].get("ratio_interval")
                shown = f"{ratio:.2f}×" + (f" (95 % interval {interval[0]:.2f}–{interval[1]:.2f})" if interval else "")
                goals.append((f"CPU {scenario}, {r['period']} frames: paramd ≤ {GOAL_CPU_RATIO}× cfloor",
                              shown, ratio <= GOAL_CPU_RATIO))
    for r in results:
        if "idle" in r["scenarios"]:
            idle = r["scenarios"]["idle"]["median"]
            w = idle["paramd"]["wakeups_per_s"]
            limit = r["periods_per_s"] + GOAL_IDLE_WAKEUP_SLACK
            # libjack's threads other than the process thread (paramd names them paramd-jack):
            # its notification thread wakes for the xruns paramd counts and cfloor ignores.
            notify = sum(t["wakeups_per_s"] for t in idle["paramd"]["threads"].values()
                         if t["name"] == "paramd-jack" and not t["realtime"])
            goals.append((f"idle wake-ups, {r['period']} frames: paramd ≤ {limit:g}/s",
                          f"{w:.0f}/s, of which libjack's notification thread {notify:.0f}/s"
                          f" (cfloor {idle['cfloor']['wakeups_per_s']:.0f}/s)", w <= limit))
    rss = max(s["median"]["paramd"]["rss_anon_kib"] for r in results for s in r["scenarios"].values())
    floor_rss = max(s["median"]["cfloor"]["rss_anon_kib"] for r in results for s in r["scenarios"].values())
    goals.append((f"RssAnon: paramd ≤ {GOAL_RSS_ANON_KIB} KiB", f"{rss} KiB (cfloor {floor_rss} KiB)", rss <= GOAL_RSS_ANON_KIB))
    for text, value, met in goals:
        say(f"  [{'met' if met else 'NOT met'}] {text}: {value}")
    xruns = {k: sum(s["median"][k]["xruns"] for r in results for s in r["scenarios"].values()) for k in ("paramd", "cfloor")}
    say(f"JACK xruns over all windows: paramd's server {xruns['paramd']}, cfloor's server {xruns['cfloor']}"
        " (a busy machine shows here)")
    print("\n".join(lines), flush=True)
    return [{"goal": t, "value": v, "met": m} for t, v, m in goals]


# ---------------------------------------------------------------- main

def build(args):
    binaries = {}
    if args.paramd:
        binaries["paramd"] = os.path.abspath(args.paramd)
    else:
        subprocess.run(["swift", "build", "-c", "release", "--product", "paramd"], cwd=ROOT, check=True)
        bin_dir = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, check=True,
                                 capture_output=True, text=True).stdout.strip()
        binaries["paramd"] = os.path.join(bin_dir, "paramd")
    if args.baseline:
        binaries["cfloor"] = os.path.abspath(args.baseline)
        return binaries
    tools = os.path.join(ROOT, ".build-tools")
    os.makedirs(tools, exist_ok=True)
    binaries["cfloor"] = os.path.join(tools, "cfloor")
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-o", binaries["cfloor"],
                    os.path.join(ROOT, "Benchmarks", "cfloor", "cfloor.c"), os.path.join(ROOT, "Benchmarks", "cfloor", "cfloor_osc.c"),
                    "-ljack", "-llo", "-lm", "-lpthread"],
                   check=True)
    return binaries


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paramd", help="paramd binary to measure (default: build a release one)")
    parser.add_argument("--seconds", type=float, default=4, help="measurement window (default 4)")
    parser.add_argument("--warmup", type=float, default=2, help="seconds before each window (default 2)")
    parser.add_argument("--repeats", type=int, default=12,
                        help="windows per scenario (default 12: one window's ratio moves by ±0.2 here, and more "
                             "from one start of the processes to the next)")
    parser.add_argument("--periods", default="64 256", help="JACK period sizes (default '64 256')")
    parser.add_argument("--scenarios", default="idle ramping subscribers",
                        help="which scenarios to run, in their fixed order (default 'idle ramping subscribers')")
    parser.add_argument("--rounds", type=int, default=12,
                        help="start both servers and clients afresh this many times, the windows shared "
                             "among them (default 12: one window of each scenario per start; at most --repeats)")
    parser.add_argument("--quick", action="store_true", help="1 repeat of 5 s, 1 s warm-up")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--baseline", metavar="PARAMD",
                        help="another paramd build in cfloor's place (an A/B of two builds, driven alike; "
                             "the 'cfloor' columns are then this build, and the goals are not judged)")
    parser.add_argument("--pin", action=argparse.BooleanOptionalAction, default=(os.cpu_count() or 1) >= 2,
                        help="pin each client and its server to a CPU of their own, swapped every round "
                             "(default on two or more CPUs; --no-pin leaves placement to the scheduler)")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.repeats, args.warmup, args.rounds = 5, 1, 1, 1
    signal.signal(signal.SIGTERM, on_sigterm)

    binaries = build(args)
    flavours = {"paramd": "paramd", "cfloor": "paramd" if args.baseline else "cfloor"}
    machine = {
        "cpus": os.cpu_count(),
        "cpu": next((line.split(":", 1)[1].strip() for line in read("/proc/cpuinfo").splitlines()
                     if line.startswith("model name")), "?"),
        "kernel": os.uname().release,
        "load_average_at_start": os.getloadavg(),
    }
    print(f"paramd: {binaries['paramd']}\ncfloor: {binaries['cfloor']}\nmachine: {machine}", flush=True)
    workroot = tempfile.mkdtemp(prefix="paramd-bench-process-")
    results = []
    try:
        for period in (int(p) for p in args.periods.split()):
            results.append(run_period(period, args, binaries, flavours, workroot))
    except (KeyboardInterrupt, Stopped):
        print("interrupted; everything started was stopped", file=sys.stderr)
        return 130
    machine["load_average_at_end"] = os.getloadavg()
    goals = report(results, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"command": " ".join(sys.argv), "binaries": binaries, "machine": machine,
                       "settings": {"pinned": args.pin, "seconds": args.seconds, "warmup": args.warmup, "repeats": args.repeats,
                                    "sample_rate": SAMPLE_RATE, "ramps": RAMPS, "ramp_seconds": RAMP_SECONDS,
                                    "subscribers": SUBSCRIBERS, "subscriber_rate": SUBSCRIBER_RATE},
                       "results": results, "goals": goals, "logs": workroot}, f, indent=2)
        print(f"JSON: {args.json}")
    print(f"logs: {workroot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
