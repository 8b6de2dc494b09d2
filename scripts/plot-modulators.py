#!/usr/bin/env python3
"""Draws docs/modulators/*.svg from paramd's own output (`make plots`; docs/MODULATORS.md).

Starts a private dummy jackd (48 kHz, 256 frames) and a release paramd with declared CV
parameters, sets a modulator on each over OSC, records the CV ports with
`paramd-jacktool record`, and writes one SVG per shape plus the three examples of
docs/MODULATORS.md. The curves are the recorded samples, not formulas; the beat grid of the
tremolo comes from `/status beat` and `beat_frame`. Python 3's standard library only.

    scripts/plot-modulators.py [--bin-dir DIR] [--out docs/modulators]
"""
import argparse
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

from osc_codec import osc_decode, osc_message

RATE = 48000
SHAPES = ["sine", "triangle", "saw", "square", "random", "sh"]

CONFIG = "".join(f"""
[lfo_{shape}]
min = 0
max = 1
initial = 0.5
cv = true
""" for shape in SHAPES) + """
[volume]
initial = 0.8
cv = true

[pan]
cv = true

[cutoff]
min = 20
max = 20000
initial = 1000
domain = "log"
cv = true
"""

# (address, OSC arguments): each shape at 1 Hz, depth 0.4 (seeded), and the three examples.
MESSAGES = [(f"/lfo_{shape}/mod", [shape, 1.0, "depth", 0.4, "seed", 7]) for shape in SHAPES] + [
    ("/volume/mod", ["sine", "8n", "depth", 0.3, "polarity", "down"]),
    ("/cutoff/mod", ["random", 0.5, "depth", 0.15, "seed", 42]),
    ("/pan/mod", ["triangle", 0.5, "depth", 0.4, "fade", 8.0]),
]
PORTS = [f"cv_lfo_{shape}" for shape in SHAPES] + ["cv_volume", "cv_cutoff", "cv_pan"]
RECORD_SECONDS = 12.5


def wait_for_line(process, stream, predicate, seconds, what):
    """Reads `stream` of `process` line by line until `predicate` holds."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            raise SystemExit(f"error: {what}: the process ended ({process.poll()})")
        if predicate(line.rstrip("\n")):
            return line.rstrip("\n")
    raise SystemExit(f"error: {what}: not within {seconds} s")


def record(bin_dir, work):
    server = f"paramd-plots-{os.getpid()}"
    env = dict(os.environ, JACK_NO_AUDIO_RESERVATION="1", XDG_CONFIG_HOME=f"{work}/config",
               XDG_STATE_HOME=f"{work}/state")
    os.makedirs(f"{work}/config/paramd")
    with open(f"{work}/config/paramd/config.toml", "w") as f:
        f.write(CONFIG)
    children = []
    try:
        jackd = subprocess.Popen(["jackd", "-n", server, "-r", "-t", "2000", "-d", "dummy", "-r", str(RATE), "-p", "256"],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        children.append(jackd)
        for _ in range(100):
            if subprocess.run(["jack_lsp", "-s", server], env=dict(env, JACK_NO_START_SERVER="1"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
                break
            time.sleep(0.1)
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.0.1", 0))
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        paramd = subprocess.Popen([f"{bin_dir}/paramd", "--server", server, "--name", "paramd-plots", "--port", str(port),
                                   "--http-port", "0", "--no-state"],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        children.append(paramd)
        wait_for_line(paramd, paramd.stderr, lambda l: "ready" in l, 20, "paramd ready")
        raw = f"{work}/recording.raw"
        recorder = subprocess.Popen([f"{bin_dir}/paramd-jacktool", "record", "--server", server, "--name", "rec-plots",
                                     "--connect", ",".join(f"paramd-plots:{p}" for p in PORTS), "--output", raw,
                                     "--seconds", str(RECORD_SECONDS + 1)],
                                    env=env, stdout=subprocess.PIPE, text=True)
        children.append(recorder)
        wait_for_line(recorder, recorder.stdout, lambda l: l == "ready", 20, "recorder ready")
        for address, args in MESSAGES:
            sock.sendto(osc_message(address, *args), ("127.0.0.1", port))
        frames = int(RECORD_SECONDS * RATE)
        wait_for_line(recorder, recorder.stdout,
                      lambda l: l.startswith("recorded ") and int(l.split()[1]) >= frames, RECORD_SECONDS + 30, "recording")
        sock.settimeout(5)
        sock.sendto(osc_message("/status"), ("127.0.0.1", port))
        while True:
            address, args = osc_decode(sock.recv(65536))
            if address == "/status":
                break
        status = dict(zip(args[0::2], args[1::2]))
        recorder.send_signal(signal.SIGTERM)
        recorder.wait(20)
        with open(raw + ".json") as f:
            meta = json.load(f)
        with open(raw, "rb") as f:
            data = f.read()
    finally:
        for child in reversed(children):
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
                try:
                    child.wait(20)
                except subprocess.TimeoutExpired:
                    child.kill()
    count = len(PORTS)
    samples = struct.unpack(f"<{meta['frames'] * count}f", data)
    # Each recorded period's first JACK frame, so a sample's frame is known across any gap.
    frame_of = []
    for start, _, n in meta["periods"]:
        frame_of.extend(range(start, start + n))
    channels = [list(zip(frame_of, samples[c::count])) for c in range(count)]
    return channels, status


def window(channel, resting, seconds, before=0.1):
    """The samples from a little before the modulator's first move, `seconds` long."""
    start = next(f for f, v in channel if v != resting and v != 0)
    first = start - int(before * RATE)
    return [(f - first, v) for f, v in channel if first <= f < first + int(seconds * RATE)]


def svg(points, title, ylabel, ymin, ymax, seconds, log=False, grid=(), note=""):
    """A small plot: value against seconds, with a frame, ticks and vertical grid lines."""
    import math
    width, height, left, right, top, bottom = 640, 220, 56, 12, 28, 34
    pw, ph = width - left - right, height - top - bottom
    def x(frame):
        return left + pw * frame / (seconds * RATE)
    def y(v):
        if log:
            v = math.log(max(v, ymin)) - math.log(ymin)
            return top + ph * (1 - v / (math.log(ymax) - math.log(ymin)))
        return top + ph * (1 - (v - ymin) / (ymax - ymin))
    step = max(1, len(points) // 1200)
    path = " ".join(f"{x(f):.1f},{y(v):.1f}" for f, v in points[::step])
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="18" font-size="13">{title}</text>']
    for g, strong in grid:
        gx = x(g)
        out.append(f'<line x1="{gx:.1f}" y1="{top}" x2="{gx:.1f}" y2="{top + ph}" stroke="{"#999" if strong else "#ddd"}"/>')
    ticks = [ymin, ymax] if log else [ymin, (ymin + ymax) / 2, ymax]
    if log:
        ticks = [t for t in (20, 100, 1000, 10000, 20000) if ymin <= t <= ymax]
    for t in ticks:
        out.append(f'<line x1="{left - 4}" y1="{y(t):.1f}" x2="{left}" y2="{y(t):.1f}" stroke="black"/>')
        out.append(f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    for s in range(int(seconds) + 1):
        sx = x(s * RATE)
        out.append(f'<line x1="{sx:.1f}" y1="{top + ph}" x2="{sx:.1f}" y2="{top + ph + 4}" stroke="black"/>')
        out.append(f'<text x="{sx:.1f}" y="{top + ph + 16}" text-anchor="middle">{s}</text>')
    out.append(f'<text x="{left + pw}" y="{height - 4}" text-anchor="end">seconds{note}</text>')
    out.append(f'<text x="12" y="{top + ph / 2:.1f}" transform="rotate(-90 12 {top + ph / 2:.1f})" '
               f'text-anchor="middle">{ylabel}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="black"/>')
    out.append(f'<polyline points="{path}" fill="none" stroke="#1f5fa8" stroke-width="1.4"/>')
    out.append("</svg>\n")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", help="where paramd and paramd-jacktool are (default: swift build -c release --show-bin-path)")
    parser.add_argument("--out", default="docs/modulators")
    options = parser.parse_args()
    bin_dir = options.bin_dir or subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"],
                                                capture_output=True, text=True, check=True).stdout.strip()
    os.makedirs(options.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="paramd-plots-") as work:
        channels, status = record(bin_dir, work)
    written = []
    def write(name, text):
        with open(f"{options.out}/{name}.svg", "w") as f:
            f.write(text)
        written.append(name)
    for i, shape in enumerate(SHAPES):
        points = window(channels[i], 0.5, 3)
        args = " ".join(str(a) for a in MESSAGES[i][1])
        write(shape, svg(points, f"/lfo_{shape}/mod {args}", "lfo (0…1)", 0, 1, 3))
    # The tremolo: one bar and a half, the timeline's beats (light) and bars (dark) from /status.
    beat, beat_frame, tempo = status["beat"], status["beat_frame"], status["tempo"]
    volume = channels[6]
    first = next(f for f, v in volume if v != 0.8 and v != 0) - int(0.1 * RATE)
    points = [(f - first, v) for f, v in volume if first <= f < first + 3 * RATE]
    frames_per_beat = 60 * RATE / tempo
    first_beat = beat - (beat_frame - first) / frames_per_beat
    grid = []
    b = int(first_beat) + 1
    while (b - first_beat) * frames_per_beat < 3 * RATE:
        grid.append(((b - first_beat) * frames_per_beat, b % 4 == 0))
        b += 1
    write("tremolo", svg(points, "/volume/mod sssfss sine 8n depth 0.3 polarity down (120 BPM)", "volume",
                         0, 1, 3, grid=grid, note="; beats light, bars dark (from /status beat, beat_frame)"))
    write("drift", svg(window(channels[7], 1000, 12), "/cutoff/mod sfsfsi random 0.5 depth 0.15 seed 42",
                       "cutoff (Hz, log)", 20, 20000, 12, log=True))
    pan = channels[8]
    write("fade-in", svg(window(pan, 0, 10), "/pan/mod sfsfsf triangle 0.5 depth 0.4 fade 8", "pan", -1, 1, 10))
    print(f"wrote {', '.join(written)} in {options.out} (tempo {tempo:g} BPM)")


if __name__ == "__main__":
    sys.exit(main())
