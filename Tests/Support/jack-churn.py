#!/usr/bin/env python3
"""Clients that come and go, as a script that runs `jack_lsp` or `jack_connect` in a loop makes
them, with PyPI's JACK-Client (module `jack`), for StaleWakeSlotTests (Tests/README.md).

    jack-churn.py SERVER NAME UNTIL [PAUSE_MS]

Opens a client NAME on SERVER and closes it, again and again, PAUSE_MS milliseconds apart
(default 0); the first client open once the file UNTIL exists is closed last. Prints `churning` once the first client is open,
and `churned N` (N clients) at the end; exits 0.
"""
import os
import sys
import time

import jack


def main():
    server, name, until = sys.argv[1], sys.argv[2], sys.argv[3]
    pause_seconds = float(sys.argv[4]) / 1000 if len(sys.argv) > 4 else 0.0
    count = 0
    while True:
        client = jack.Client(name, servername=server, no_start_server=True)
        count += 1
        if count == 1:
            print("churning", flush=True)
        done = os.path.exists(until)
        client.close()
        if done:
            break
        time.sleep(pause_seconds)  # sleep: the pace of the coming and going, not a wait for an event
    print(f"churned {count}", flush=True)


if __name__ == "__main__":
    main()
