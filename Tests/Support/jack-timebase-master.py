#!/usr/bin/env python3
"""A JACK timebase master that paramd's code did not write: PyPI's JACK-Client (module `jack`),
for JackTransportTests (Tests/README.md, "JackTransportTests").

    jack-timebase-master.py SERVER BPM BEATS_PER_BAR TICKS_PER_BEAT

Gives bar/beat/tick computed from the transport frame alone (beat = frame · BPM / 60 / rate,
whole ticks, counted from 1|1|0), so the beat at any transport frame is known exactly. Prints
`ready` once active; reads commands on stdin, one a line:

- `start`, `stop`: the transport (`ok start`, `ok stop`);
- `status N` → `status N stamp S period P rolling R frame T`: from the last process callback,
  `jack_last_frame_time` (S), its period (P), whether the transport rolled (R, 0 or 1) and its
  frame at the period's first frame (T);
- `release`: gives up the timebase (`ok release`);
- `quit`, or the end of the input: closes the client and exits 0.
"""
import sys

import jack


def emit(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    server, bpm, per_bar, ticks = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    client = jack.Client("timebase-master", servername=server, no_start_server=True)
    last = {"stamp": 0, "period": 0, "rolling": 0, "frame": 0}

    @client.set_process_callback
    def process(frames):
        state, position = client.transport_query_struct()
        last.update(stamp=client.last_frame_time, period=frames,
                    rolling=int(state == jack.ROLLING), frame=position.frame)

    def timebase(state, blocksize, position, new_position):
        beats = position.frame * bpm / (60.0 * position.frame_rate)
        whole = int(beats)
        position.valid = position.valid | jack.POSITION_BBT
        position.bar = whole // per_bar + 1
        position.beat = whole % per_bar + 1
        position.tick = min(int((beats - whole) * ticks), int(ticks) - 1)
        position.bar_start_tick = (position.bar - 1) * per_bar * ticks
        position.beats_per_bar = per_bar
        position.beat_type = 4
        position.ticks_per_beat = ticks
        position.beats_per_minute = bpm

    client.set_timebase_callback(timebase)
    client.activate()
    emit("ready")
    for line in sys.stdin:
        words = line.split()
        if words == ["quit"]:
            break
        if words == ["start"]:
            client.transport_start()
            emit("ok start")
        elif words == ["stop"]:
            client.transport_stop()
            emit("ok stop")
        elif words == ["release"]:
            client.release_timebase()
            emit("ok release")
        elif len(words) == 2 and words[0] == "status":
            s = dict(last)
            emit(f"status {words[1]} stamp {s['stamp']} period {s['period']} rolling {s['rolling']} frame {s['frame']}")
        elif words:
            emit(f"error unknown command '{line.strip()}' (start, stop, status N, release, quit)")
    client.deactivate()
    client.close()


main()
