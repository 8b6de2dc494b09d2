#!/usr/bin/env python3
"""A Link peer that paramd's code did not write: PyPI's aalink (Ableton's Link library under
pybind11), driven like paramd-linkprobe over stdin and stdout (Tests/README.md, "LinkPeerTests").

Prints `ready`, then `peers N` and `tempo BPM` as the session changes; answers `status` with
`status peers N tempo BPM beat B phase P time T` (T: the time on Link's clock the beat was
read at, whole microseconds: CLOCK_MONOTONIC_RAW on Linux), `tempo BPM` with `ok tempo BPM`
after setting the session tempo, and exits on `quit` or the end of its input.
"""
import asyncio
import sys

from aalink import Link


def emit(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def micros(delta):
    """aalink's `time` (a timedelta on Link's clock) in whole microseconds."""
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


async def main():
    tempo = float(sys.argv[1]) if len(sys.argv) > 1 else 120.0
    loop = asyncio.get_running_loop()
    link = Link(tempo)
    link.quantum = 4
    link.set_num_peers_callback(lambda peers: emit(f"peers {peers}"))
    link.set_tempo_callback(lambda bpm: emit(f"tempo {bpm}"))
    link.enabled = True
    emit("ready")
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        words = line.split()
        if not line or words == ["quit"]:
            break
        if words == ["status"]:
            # The beat is read at Link's "now": the clock read either side of it, midway.
            before = micros(link.time)
            beat, phase = link.beat, link.phase
            after = micros(link.time)
            emit(f"status peers {link.num_peers} tempo {link.tempo} beat {beat} phase {phase} time {(before + after) // 2}")
        elif len(words) == 2 and words[0] == "tempo":
            link.tempo = float(words[1])
            emit(f"ok tempo {link.tempo}")
        elif words:
            emit(f"error unknown command '{line.strip()}' (status, tempo BPM, quit)")
    link.enabled = False


asyncio.run(main())
