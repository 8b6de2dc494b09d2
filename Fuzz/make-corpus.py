#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus, Fuzz/corpus/: valid packets for every route and the
crafted bad cases of SPEC §4.7. Run from the package root; the files are committed, so this
only needs running again when the address space changes. Inputs the fuzzer found are kept
beside these as crash-<name> files (do not delete them)."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def pad(b):
    return b + b"\0" * (4 - len(b) % 4)


def s(text):
    return pad(text.encode())


def msg(address, *args):
    tags, data = ",", b""
    for a in args:
        if isinstance(a, tuple):
            kind, v = a
            tags += kind
            data += {"d": lambda: struct.pack(">d", v), "h": lambda: struct.pack(">q", v),
                     "b": lambda: struct.pack(">i", len(v)) + (pad(v) if len(v) % 4 else v),
                     "T": lambda: b"", "F": lambda: b"", "N": lambda: b"", "S": lambda: s(v)}[kind]()
        elif isinstance(a, float):
            tags += "f"
            data += struct.pack(">f", a)
        elif isinstance(a, int):
            tags += "i"
            data += struct.pack(">i", a)
        else:
            tags += "s"
            data += s(a)
    return s(address) + s(tags) + data


def bundle(*elements, tag=1):
    return b"#bundle\0" + struct.pack(">Q", tag) + b"".join(struct.pack(">i", len(e)) + e for e in elements)


nan, inf = float("nan"), float("inf")
cases = {
    # Valid: every route, every curve family, options.
    "volume": msg("/volume", 0.0),
    "volume-int": msg("/volume", 0),
    "volume-double": msg("/volume", ("d", 0.5)),
    "volume-fade": msg("/volume", 1.0, 2.5),
    "frequency-easein": msg("/frequency", 880.0, 0.03, "easeIn"),
    "pan-bounce": msg("/pan", 1.0, 1.2, "easeOutBounce"),
    "tone-spring": msg("/tone", 0.8, 0.0, "spring(1,100,10)"),
    "tone-uikit-spring": msg("/tone", 0.5, 1.0, "spring(0.5, 2)"),
    "input-steps": msg("/input", 0.2, 1.0, "steps(4, jump-both)"),
    "pan-bezier": msg("/pan", -1.0, 0.5, "cubic-bezier(0.1,0.7,0.9,0.2)"),
    "volume-curve": msg("/volume", 0.3, 0.5, "curve(-4)"),
    "volume-back": msg("/volume", 0.3, 0.5, "easeInOutBack(2.5)"),
    "volume-options": msg("/volume", 0.3, 0.5, "easeInEaseOut", "from", 1.0, "velocity", 2.0, "domain", "db", "id", 7),
    "volume-tremolo": msg("/volume", 0.3, 0.5, "easeInEaseOut", "repeat", "inf", "autoreverse", 1),
    "frequency-delay-additive": msg("/frequency", 220.0, 1.0, "linear", "delay", 0.5, "mode", "additive"),
    "note": msg("/note", 57.0),
    "note-glide": msg("/note", 69.5, 2.0, "easeOut"),
    "a4": msg("/a4", 432.0),
    "volume-db": msg("/volume/db", -12.0, 3.0),
    "volume-db-neg-inf": msg("/volume/db", -inf),
    "volume-get": msg("/volume/get"),
    "frequency-get": msg("/frequency/get"),
    "subscribe": msg("/subscribe"),
    "subscribe-port": msg("/subscribe", "/*", 60, 7000),
    "subscribe-pattern": msg("/subscribe", "/{pan,tone}", 0.0),
    "subscribe-brackets": msg("/subscribe", "/[a-z!]*/[!g]??", 10),
    "unsubscribe": msg("/unsubscribe"),
    "unsubscribe-port": msg("/unsubscribe", "/freq*", 7000),
    "ping": msg("/ping"),
    "status": msg("/status"),
    "params": msg("/params"),
    "stop": msg("/stop"),
    "pan-stop": msg("/pan/stop"),
    "volume-default": msg("/volume/default", 0.5, "easeOut"),
    "volume-keyframes": msg("/volume/keyframes", 2.0, 0.0, 1.0, 0.5, "times", 0.0, 0.3, 1.0, "curves", "linear", "easeIn", "calc", "cubic", "repeat", 2, "autoreverse", 1),
    "bundle": bundle(msg("/tone", 0.5, 0.05, "linear"), msg("/frequency", 300.0, 0.05), msg("/pan", 1.0)),
    "bundle-nested": bundle(bundle(msg("/volume", 0.5)), msg("/pan", 0.0), tag=0xE0000000_00000000),
    "bundle-empty": bundle(),
    "scenes": bundle(msg("/scene/save", "a"), msg("/pan", 1.0, 0.0), msg("/scene/save", "b", "/{pan,volume}"),
                     msg("/scene/recall", "a", 0.05, "linear", "stagger", 0.01, "repeat", 1.5, "id", 3),
                     msg("/scene/morph", "a", "b"), msg("/morph", 1.0, 0.05), msg("/scene/recall", "_previous"),
                     msg("/scene/release"), msg("/scene/list"), msg("/scene/get", "a"), msg("/scene/delete", "b")),
    "typed-args": msg("/volume", ("h", 1), ("T", None), ("F", None), ("N", None), ("S", "linear"), ("b", b"\1\2\3")),
    # Bad (SPEC §4.7): refused messages.
    "unknown-address": msg("/nowhere"),
    "volume-nan": msg("/volume", nan),
    "volume-inf-duration": msg("/volume", 0.5, inf),
    "volume-negative-duration": msg("/volume", 0.5, -1.0),
    "volume-day-duration": msg("/volume", 0.5, 86401.0),
    "volume-unknown-curve": msg("/volume", 0.5, 1.0, "wobble"),
    "volume-unknown-option": msg("/volume", 0.5, 1.0, "linear", "bogus", 1),
    "volume-bad-bezier": msg("/volume", 0.5, 1.0, "cubic-bezier(2,0,1,1)"),
    "volume-bad-steps": msg("/volume", 0.5, 1.0, "steps(0)"),
    "volume-bad-spring": msg("/volume", 0.5, 1.0, "spring(-1,1e99,10)"),
    "keyframes-33": msg("/volume/keyframes", 1.0, *([0.0, 1.0] * 17)[:33]),
    "subscribe-bad-pattern": msg("/subscribe", "/[abc"),
    "subscribe-bad-port": msg("/subscribe", "/*", 60, 70000),
    "scene-bad": bundle(msg("/scene/save", "Bad Name"), msg("/scene/save", "x", "/nothing*"), msg("/scene/recall", "nope"),
                        msg("/scene/save", "a"), msg("/scene/recall", "a", "stagger", -1.0), msg("/scene/morph", "a", "nope")),
    "musical": bundle(msg("/volume", 0.2, "1m"), msg("/pan", 1.0, "8t", "easeIn", "delay", "1b", "quantize", "4n"),
                      msg("/cutoff/keyframes", "2m", 200.0, 2000.0, "quantize", "1m"), msg("/tempo", 60.0),
                      msg("/scene/save", "a"), msg("/scene/recall", "a", "4n.", "stagger", "16n", "quantize", "1m"),
                      msg("/tempo", 140.0, "1m", "linear"), msg("/tone", 0.5, "1.5b", "repeat", "inf")),
    "musical-bad": bundle(msg("/volume", 0.2, "0m"), msg("/volume", 0.2, "4x"), msg("/volume", 0.2, "-1b"),
                          msg("/volume", 0.2, 1.0, "quantize", 4.0), msg("/volume", 0.2, "quantize"),
                          msg("/tempo", 0.0), msg("/tempo", 1000.0), msg("/tempo", 90.0, 1.0, "easeIn"),
                          msg("/volume", 0.2, "1000000m")),
    "tempo-get": msg("/tempo/get"),
    # Bad: malformed packets.
    "truncated": msg("/volume", 0.0, 0.0)[:-4],
    "misaligned": b"/x\0\0,f",
    "bad-tag": s("/volume") + s(",q") + b"\0\0\0\0",
    "array-tag": s("/volume") + s(",[f]") + b"\0" * 4,
    "blob-too-big": s("/volume") + s(",b") + struct.pack(">i", 1000) + b"\1\2\3\4",
    "bundle-element-too-big": b"#bundle\0" + struct.pack(">Q", 1) + struct.pack(">i", 64) + msg("/volume", 0.0),
}
nested = msg("/volume", 0.0, 0.0)
for _ in range(9):
    nested = bundle(nested)
cases["bundle-too-deep"] = nested

os.makedirs(OUT, exist_ok=True)
for name, data in cases.items():
    with open(os.path.join(OUT, name + ".osc"), "wb") as f:
        f.write(data)
print(f"{len(cases)} seed inputs in {OUT}")
