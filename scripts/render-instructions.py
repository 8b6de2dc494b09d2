#!/usr/bin/env python3
"""Instructions per rendered frame of every RenderProfile scenario, counted by callgrind.

    scripts/render-instructions.py NEW/RenderProfile [OLD/RenderProfile] [--periods 200]

Counts are exact and do not move with the machine's load (times move 10-30 % run to run,
docs/PERFORMANCE.md), so two builds compare to the instruction. Each scenario runs twice, with
`periods` and with 0 periods after the warm-up; the difference divided by the frames rendered
is the steady per-frame cost, without start-up. With OLD, a ratio column new/old. Valgrind 3.19
cannot read the Swift binaries' debug information ("Possibly corrupted debuginfo file"), so each
runs as a stripped copy.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

FRAMES_PER_PERIOD = 256


def stripped(binary, scratch):
    copy = os.path.join(scratch, os.path.basename(os.path.dirname(os.path.abspath(binary))) + "-" + str(len(os.listdir(scratch))))
    subprocess.run(["strip", "-o", copy, binary], check=True)
    return copy


def scenarios(binary):
    out = subprocess.run([binary, "--no-such-scenario"], capture_output=True, text=True).stdout
    return [line.strip() for line in out.splitlines()[1:] if line.startswith("  ")]


def instructions(binary, scenario, periods):
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "cg.out")
        subprocess.run(["env", "SWIFT_DETERMINISTIC_HASHING=1", "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, scenario, str(periods)],
                       check=True, capture_output=True)
        with open(out) as f:
            for line in f:
                match = re.match(r"(summary|totals): (\d+)", line)
                if match:
                    return int(match.group(2))
    raise RuntimeError(f"no total in callgrind's output for {scenario}")


def per_frame(binary, scenario, periods):
    # RenderProfile renders one warm-up period, then `periods`; 0 leaves only the fixed cost.
    return (instructions(binary, scenario, periods) - instructions(binary, scenario, 0)) / (periods * FRAMES_PER_PERIOD)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("new")
    parser.add_argument("old", nargs="?")
    parser.add_argument("--periods", type=int, default=200)
    parser.add_argument("--filter", default="", help="only scenarios whose name contains this")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="render-instructions-") as scratch:
        compare(args, scratch)


def compare(args, scratch):
    args.new = stripped(args.new, scratch)
    if args.old:
        args.old = stripped(args.old, scratch)
    names = [n for n in scenarios(args.new) if args.filter in n]
    if args.old:
        common = set(scenarios(args.old))
        names = [n for n in names if n in common]
    worst = 0.0
    print(f"{'scenario':60} {'new Ir/frame':>13}" + (f" {'old Ir/frame':>13} {'new/old':>8}" if args.old else ""))
    for name in names:
        new = per_frame(args.new, name, args.periods)
        row = f"{name:60} {new:13.1f}"
        if args.old:
            old = per_frame(args.old, name, args.periods)
            ratio = new / old if old else float("nan")
            worst = max(worst, ratio)
            row += f" {old:13.1f} {ratio:8.3f}"
        print(row, flush=True)
    if args.old:
        print(f"worst new/old: {worst:.3f}")


if __name__ == "__main__":
    sys.exit(main())
