#!/usr/bin/env python3
"""A WebSocket client for paramd's OSCQuery endpoint (SPEC §9), built on general libraries
only: `websockets` for the socket, `python-osc` (pythonosc) for OSC. Nothing of paramd's own
code. The Swift end-to-end tests (OSCQueryEndToEndTests) run it and read the JSON it prints.

  wsclient.py follow URL PATH --via ws|udp --osc-port N --to V --seconds S [--then V2]
      LISTEN PATH; the first value; then the move sent over the WebSocket (binary OSC) or as UDP
      (liblo's oscsend); every message until PATH/done; then IGNORE, a second move, and what
      still arrives in the next second.
  wsclient.py replies URL
      /ping, /volume/get, an unknown address and a bad argument over the WebSocket: the replies.
  wsclient.py bundles URL --in S --frames N --rate R
      two bundles over the WebSocket, tagged S seconds from now and N/R seconds later
      (/volume 0.5 then /volume 0.25, duration 0): their frames are read from the recording.
  wsclient.py refused URL --origin ORIGIN
      an upgrade with that Origin: the HTTP status of the refusal.
  wsclient.py flood URL COUNT
      COUNT OSC messages (/a4 f 440, no reply) as fast as the socket takes them, then /ping:
      how long the sending took, and whether /pong and /status came back.
  wsclient.py targets URL --osc-port N
      LISTEN /frequency; `oscsend … /frequency ffs 880 3 easeInOutCubic` (another controller, over
      UDP): every message until /frequency/target, timed from before the send; then
      /frequency/stop over UDP and what arrives in the next half second; then /frequency/get.
  wsclient.py hold URL PATH SECONDS
      LISTEN PATH, print "listening" once its value came, then keep the socket open and idle.
"""
import argparse
import json
import struct
import subprocess
import sys
import time

from pythonosc.osc_bundle import OscBundle
from pythonosc.osc_message import OscMessage
from pythonosc.osc_message_builder import OscMessageBuilder
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

NTP_EPOCH = 2208988800


def message(address, *args):
    builder = OscMessageBuilder(address=address)
    for a in args:
        if isinstance(a, float):
            builder.add_arg(a, "f")
        elif isinstance(a, int):
            builder.add_arg(a, "i")
        else:
            builder.add_arg(a, "s")
    return builder.build().dgram


def decode(frame):
    """A received frame as (address, [args]), or ("#bundle", ...) if paramd ever sent one."""
    if isinstance(frame, str):
        return ("#text", [frame])
    if frame.startswith(b"#bundle\0"):
        return ("#bundle", [OscBundle(frame).num_contents])
    m = OscMessage(frame)
    return (m.address, list(m.params))


def receive(ws, until=None, seconds=5.0):
    """(t, address, args) until `until` arrives (an address, or a test of address and args) or
    `seconds` pass without it."""
    out = []
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return out
        try:
            frame = ws.recv(timeout=left)
        except TimeoutError:
            return out
        address, args = decode(frame)
        out.append((time.monotonic(), address, args))
        if until is not None and (until(address, args) if callable(until) else address == until):
            return out


def move(ws, via, osc_port, path, value, seconds):
    if via == "ws":
        ws.send(message(path, float(value), float(seconds)))
    else:
        subprocess.run(["oscsend", "localhost", str(osc_port), path, "ff", str(value), str(seconds)], check=True)


def follow(args):
    result = {}
    with connect(args.url, open_timeout=10) as ws:
        ws.send(json.dumps({"COMMAND": "LISTEN", "DATA": args.path}))
        first = receive(ws, until=args.path, seconds=3)
        result["initial"] = [m[2] for m in first if m[1] == args.path]
        start = time.monotonic()
        move(ws, args.via, args.osc_port, args.path, args.to, args.seconds)
        got = receive(ws, until=args.path + "/done", seconds=args.seconds + 5)
        result["messages"] = [[round(t - start, 4), a, p] for t, a, p in got]
        ws.send(json.dumps({"COMMAND": "IGNORE", "DATA": args.path}))
        # The IGNORE reaches the control thread before the move does: the /ping sent after it on
        # this socket is answered by the same thread, in order, so /pong means the IGNORE is in.
        ws.send(message("/ping"))
        receive(ws, until="/pong", seconds=3)
        move(ws, args.via, args.osc_port, args.path, args.then, 0.2)
        after = receive(ws, seconds=1.0)
        result["after_ignore"] = [[a, p] for _, a, p in after]
    print(json.dumps(result))


def replies(args):
    result = {}
    with connect(args.url, open_timeout=10) as ws:
        ws.send(message("/ping"))
        result["ping"] = [[a, p] for _, a, p in receive(ws, until="/pong", seconds=3)]
        ws.send(message("/volume/get"))
        result["get"] = [[a, p] for _, a, p in receive(ws, until="/volume/target", seconds=3)]
        ws.send(message("/nothing", 1.0))
        result["unknown"] = [[a, p] for _, a, p in receive(ws, until="/error", seconds=3)]
        ws.send(message("/volume", "loud"))
        result["bad"] = [[a, p] for _, a, p in receive(ws, until="/error", seconds=3)]
        ws.send(b"\x01\x02\x03")  # not OSC: dropped and counted, nothing comes back
        result["malformed"] = [[a, p] for _, a, p in receive(ws, seconds=0.5)]
        ws.send(message("/status"))
        status = receive(ws, until="/status", seconds=3)
        pairs = status[-1][2] if status else []
        result["status"] = dict(zip(pairs[0::2], pairs[1::2]))
    print(json.dumps(result))


def ntp_now_plus(seconds):
    t = time.time() + seconds
    whole = int(t)
    return ((whole + NTP_EPOCH) << 32) + int((t - whole) * (1 << 32))


def bundle(tag, *messages):
    out = b"#bundle\0" + struct.pack(">Q", tag)
    for m in messages:
        out += struct.pack(">i", len(m)) + m
    return out


def bundles(args):
    t1 = ntp_now_plus(args.at)
    t2 = t1 + round(args.frames / args.rate * (1 << 32))
    with connect(args.url, open_timeout=10) as ws:
        # The later one first: each starts on its own frame, whatever the order of arrival.
        ws.send(bundle(t2, message("/volume", 0.25, 0.0)))
        ws.send(bundle(t1, message("/volume", 0.5, 0.0)))
        got = receive(ws, seconds=args.at + 0.5)
    print(json.dumps({"replies": [[a, p] for _, a, p in got]}))


def refused(args):
    try:
        with connect(args.url, origin=args.origin, open_timeout=10):
            print(json.dumps({"status": 101}))
    except InvalidStatus as e:
        print(json.dumps({"status": e.response.status_code}))


def targets(args):
    result = {}
    with connect(args.url, open_timeout=10) as ws:
        ws.send(json.dumps({"COMMAND": "LISTEN", "DATA": "/frequency"}))
        result["initial"] = [[a, p] for _, a, p in receive(ws, until="/frequency", seconds=3)]
        start = time.monotonic()
        subprocess.run(["oscsend", "localhost", str(args.osc_port), "/frequency", "ffs", "880", "3", "easeInOutCubic"], check=True)
        got = receive(ws, until="/frequency/target", seconds=2)
        result["after_send"] = [[round(t - start, 4), a, p] for t, a, p in got]
        # The glide under way (a value streamed past 450): a stop freezes it between 440 and 880.
        receive(ws, until=lambda a, p: a == "/frequency" and bool(p) and p[0] > 450, seconds=3)
        subprocess.run(["oscsend", "localhost", str(args.osc_port), "/frequency/stop"], check=True)
        result["after_stop"] = [[a, p] for _, a, p in receive(ws, seconds=0.5)]
        ws.send(message("/frequency/get"))
        got = receive(ws, until="/frequency/target", seconds=3)
        result["get"] = [[a, p] for _, a, p in got[-2:]]
    print(json.dumps(result))


def hold(args):
    with connect(args.url, open_timeout=10) as ws:
        ws.send(json.dumps({"COMMAND": "LISTEN", "DATA": args.path}))
        first = receive(ws, until=args.path, seconds=3)
        print("listening" if first else "no value", flush=True)
        got = receive(ws, seconds=args.seconds)
        print(json.dumps({"while_idle": [[a, p] for _, a, p in got]}), flush=True)


def flood(args):
    packet = message("/a4", 440.0)
    with connect(args.url, open_timeout=10) as ws:
        start = time.monotonic()
        for _ in range(args.count):
            ws.send(packet)
        sent = time.monotonic() - start
        ws.send(message("/ping"))
        pong = receive(ws, until="/pong", seconds=30)
        answered = time.monotonic() - start
        ws.send(message("/status"))
        status = receive(ws, until="/status", seconds=10)
        pairs = status[-1][2] if status else []
    print(json.dumps({"sent_seconds": round(sent, 3), "answered_seconds": round(answered, 3),
                      "pong": bool(pong and pong[-1][1] == "/pong"), "status": dict(zip(pairs[0::2], pairs[1::2]))}))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("follow")
    f.add_argument("url")
    f.add_argument("path")
    f.add_argument("--via", choices=["ws", "udp"], default="ws")
    f.add_argument("--osc-port", type=int, default=9000)
    f.add_argument("--to", type=float, required=True)
    f.add_argument("--seconds", type=float, required=True)
    f.add_argument("--then", type=float, default=0.9)
    r = sub.add_parser("replies")
    r.add_argument("url")
    b = sub.add_parser("bundles")
    b.add_argument("url")
    b.add_argument("--at", type=float, default=0.3)
    b.add_argument("--frames", type=int, default=1000)
    b.add_argument("--rate", type=float, default=48000)
    o = sub.add_parser("refused")
    o.add_argument("url")
    o.add_argument("--origin", required=True)
    fl = sub.add_parser("flood")
    fl.add_argument("url")
    fl.add_argument("count", type=int)
    tg = sub.add_parser("targets")
    tg.add_argument("url")
    tg.add_argument("--osc-port", type=int, required=True)
    h = sub.add_parser("hold")
    h.add_argument("url")
    h.add_argument("path")
    h.add_argument("seconds", type=float)
    args = parser.parse_args()
    {"follow": follow, "replies": replies, "bundles": bundles, "refused": refused, "hold": hold, "flood": flood, "targets": targets}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
