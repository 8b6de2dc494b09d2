#!/usr/bin/env python3
"""Summarises `swift package benchmark` text output (stdin) as the Markdown table of
docs/PERFORMANCE.md: nanoseconds per frame at the best (p0), median (p50) and p90 iteration,
and the median's excess over "idle, tone off" (for one animating parameter: the curve's own
share). The full renders first, then the C kernel's (the same math in plain C), then the rest by
median, costliest first; then the ratios Swift/C and the goal (Swift render ≤ 1.5× the C kernel,
all five animating along the default curve). Also checks that no benchmark allocated."""
import re
import sys

name, rows, mallocs, modulators, timecode = None, {}, {}, {}, {}
for line in sys.stdin:
    line = line.rstrip("\n")
    if re.match(r"^(Full render|C kernel|Curve|Keyframes|Declared|Scene|Modulator|Timecode): ", line):
        name = line
    elif name and line.startswith("│ Time per frame (ps)"):
        cells = [c.strip() for c in line.split("│")[2:-1]]
        rows[name] = [float(c) / 1000 for c in cells[:7]]   # p0 p25 p50 p75 p90 p99 p100 (large ones come as 2.12e+07)
    elif name and line.startswith("│ Time per parameter-frame (ps)"):
        cells = [c.strip() for c in line.split("│")[2:-1]]
        modulators[name] = [float(c) / 1000 for c in cells[:7]]
    elif name and line.startswith("│ Time per 256-frame period (ns)"):
        cells = [c.strip() for c in line.split("│")[2:-1]]
        timecode[name] = [float(c) / 1000 for c in cells[:7]]   # µs
    elif name and line.startswith("│ Malloc (total)"):
        cells = [c.strip() for c in line.split("│")[2:-1]]
        mallocs[name] = int(cells[6])                      # p100

if not rows and not modulators and not timecode:
    sys.exit("no benchmark results on stdin")
idle = rows.get("Full render: idle, tone off", [0] * 7)[2]
print("| benchmark | best (p0) | median (p50) | p90 | median − idle (tone off) |")
print("| --- | ---: | ---: | ---: | ---: |")
full = ["Full render: all five animating", "Full render: all five animating, default curve",
        "Full render: idle, tone on", "Full render: idle, tone off"]
kernel = sorted(k for k in rows if k.startswith("C kernel: "))
order = [k for k in full if k in rows] + kernel + sorted((k for k in rows if k not in full and k not in kernel), key=lambda k: -rows[k][2])
declared = [k for k in order if k.startswith("Declared: ")]
scenes = [k for k in order if k.startswith("Scene: ")]
order = [k for k in order if k not in declared and k not in scenes]
for key in order:
    p = rows[key]
    share = f"{p[2] - idle:.1f}" if not key.startswith(("Full render: idle", "C kernel: ")) else ""
    print(f"| {key} | {p[0]:.1f} | {p[2]:.1f} | {p[4]:.1f} | {share} |")
print("\nns per frame; 256-frame periods at 48 kHz.")
if declared:
    # The declared parameters' goals: per parameter and frame, over "idle, tone off".
    print("\n| declared parameters | best (p0) | median (p50) | per parameter, median − idle | goal |")
    print("| --- | ---: | ---: | ---: | --- |")
    for key in sorted(declared, key=lambda k: (int(k.split()[1]), k)):
        p, count = rows[key], int(key.split()[1])
        each = (p[2] - idle) / count
        goal = 15 if "animating" in key else 0.5
        print(f"| {key} | {p[0]:.1f} | {p[2]:.1f} | {each:.2f} | ≤ {goal} ns: {'met' if each <= goal else 'NOT met'} |")

if scenes:
    # Scenes (SPEC §13): per member and frame over "idle, tone off", against the same members
    # animated separately along `default`; a recall put in place, per period.
    print("\n| scenes | best (p0) | median (p50) | per member, best − idle | per member, median − idle | goal |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    baseline = [k for k in declared if "animating" in k]
    for key in sorted(scenes, key=lambda k: (int(k.split()[1]), k)) + sorted(baseline, key=lambda k: int(k.split()[1])):
        p, count = rows[key], int(key.split()[1])
        best, each = (p[0] - rows.get("Full render: idle, tone off", [0])[0]) / count, (p[2] - idle) / count
        if "in one period" in key:
            period = p[2] * 256 / 1000
            print(f"| {key} | {p[0]:.1f} | {p[2]:.1f} | | | one period {period:.1f} µs (median) ≤ 5333 µs at 256 frames: {'met' if period <= 5333 else 'NOT met'} |")
            continue
        goal = 2 if key.endswith("linear") else (6 if key.startswith("Scene: ") else None)
        verdict = f"≤ {goal} ns: {'met' if each <= goal else 'NOT met'}" if goal else "today, separately"
        print(f"| {key} | {p[0]:.1f} | {p[2]:.1f} | {best:.2f} | {each:.2f} | {verdict} |")

# Swift against the C kernel, measured in the same run.
GOAL = 1.5
pairs = [(k, "Full render: " + k[len("C kernel: "):]) for k in kernel]
pairs = [(c, swift) for c, swift in pairs if swift in rows]
if pairs:
    print("\nSwift render / C kernel (the same math in plain C, -O2), this run:\n")
    print("| scenario | Swift best | C best | ratio (best) | Swift median | C median | ratio (median) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for c, swift in pairs:
        sw, ck = rows[swift], rows[c]
        print(f"| {c[len('C kernel: '):]} | {sw[0]:.1f} | {ck[0]:.1f} | {sw[0] / ck[0]:.2f}× | {sw[2]:.1f} | {ck[2]:.1f} | {sw[2] / ck[2]:.2f}× |")
    goal = "C kernel: all five animating, default curve"
    if goal in rows and "Full render: all five animating, default curve" in rows:
        sw, ck = rows["Full render: all five animating, default curve"], rows[goal]
        ratio = sw[0] / ck[0]
        verdict = "met" if ratio <= GOAL else "NOT met"
        print(f"\nGoal: Swift render ≤ {GOAL}× the C kernel (all five animating, default curve; best): "
              f"{ratio:.2f}× ({sw[2] / ck[2]:.2f}× at the median): {verdict}")
if modulators:
    # ModulatorBenchmarks: 64 parameters, ns per parameter per frame (SPEC §15's goal: ≤ 3 ns
    # for 64 resting with a sine).
    # The C floor's rows ("Modulator: C, 64 resting, <shape>") go beside their Swift scenario.
    print("\n| modulators (64 parameters) | best (p0) | median (p50) | p90 | C floor best | C floor median | goal |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    swift = [k for k in modulators if not k.startswith("Modulator: C, ")]
    for key in sorted(swift, key=lambda k: ("animating" in k, modulators[k][2])):
        p = modulators[key]
        c = modulators.get(key.replace("Modulator: ", "Modulator: C, ", 1))
        floor = f"{c[0]:.2f} | {c[2]:.2f}" if c else " | "
        goal = f"≤ 3 ns: {'met' if p[2] <= 3 else 'NOT met'}" if key == "Modulator: 64 resting, sine" else ""
        print(f"| {key[len('Modulator: '):]} | {p[0]:.2f} | {p[2]:.2f} | {p[4]:.2f} | {floor} | {goal} |")
    print("\nns per parameter per frame; 256-frame periods at 48 kHz.")
if timecode:
    # TimecodeBenchmarks: µs per 256-frame period (SPEC §18's goal: decoding ≤ 2 % of it, 106.7 µs).
    print("\n| timecode | best (p0) | median (p50) | p90 | share of a 256-frame period (median) | goal |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for key in sorted(timecode, key=lambda k: -timecode[k][2]):
        p = timecode[key]
        share = p[2] / (256 / 48000 * 1e6) * 100
        goal = f"≤ 2 %: {'met' if share <= 2 else 'NOT met'}" if "C floor" not in key else ""
        print(f"| {key[len('Timecode: '):]} | {p[0]:.2f} | {p[2]:.2f} | {p[4]:.2f} | {share:.3f} % | {goal} |")
    print("\nµs per 256-frame period at 48 kHz.")
allocating = {k: v for k, v in mallocs.items() if v}
if allocating:
    print("ALLOCATIONS while rendering:", allocating)
    sys.exit(1)
print("No allocation while rendering (Malloc (total) = 0 in every iteration).")
