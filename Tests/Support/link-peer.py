#!/usr/bin/env python3
"""A Link peer that paramd's code did not write: PyPI's aalink (Ableton's Link library under
pybind11), driven like paramd-linkprobe over stdin and stdout (Tests/README.md, "LinkPeerTests").

Prints `ready`, then `peers N` and `tempo BPM` as the session changes; answers `status` with
`status peers N tempo BPM beat B phase P`, `tempo BPM` with `ok tempo BPM` after setting the
session tempo, and exits on `quit` or the end of its input.
"""
import asyncio
import sys

from aalink import Link


def emit(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


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
            emit(f"status peers {link.num_peers} tempo {link.tempo} beat {link.beat} phase {link.phase}")
        elif len(words) == 2 and words[0] == "tempo":
            link.tempo = float(words[1])
            emit(f"ok tempo {link.tempo}")
        elif words:
            emit(f"error unknown command '{line.strip()}' (status, tempo BPM, quit)")
    link.enabled = False


asyncio.run(main())
