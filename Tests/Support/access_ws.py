#!/usr/bin/env python3
"""An observer on paramd's WebSocket (SPEC §16), with the `websockets` library.

AccessTests run it in the client's network namespace:

    access_ws.py --url ws://10.77.0.1:9001/ --token TOKEN --osc HEX [--listen /volume]
                 [--origin https://studio.test:8443]   (wss:// through a TLS proxy too)

Connects with `Authorization: Bearer TOKEN`, sends LISTEN for the path and waits for the first
value, then sends the OSC packet HEX as a binary frame and waits for what comes back. Prints one
JSON object: `status` (the handshake's HTTP status, 101 when it opened), `listen` (hex frames
received after LISTEN), `replies` (hex frames received after the packet, for 1.5 s).
"""
import argparse
import asyncio
import json
import ssl
import sys

import websockets


async def run(args):
    result = {"status": None, "listen": [], "replies": []}
    try:
        headers = {"Authorization": f"Bearer {args.token}"}
        options = {}
        if args.origin:
            options["origin"] = args.origin
        if args.url.startswith("wss:"):
            # The proxy's certificate is from its own local CA, which this host does not know.
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            options["ssl"] = context
        async with websockets.connect(args.url, additional_headers=headers, open_timeout=10, **options) as ws:
            result["status"] = 101
            await ws.send(json.dumps({"COMMAND": "LISTEN", "DATA": args.listen}))
            first = await asyncio.wait_for(ws.recv(), timeout=5)
            result["listen"].append(first.hex() if isinstance(first, bytes) else first)
            await ws.send(bytes.fromhex(args.osc))
            try:
                while True:
                    frame = await asyncio.wait_for(ws.recv(), timeout=1.5)
                    result["replies"].append(frame.hex() if isinstance(frame, bytes) else frame)
            except asyncio.TimeoutError:
                pass
    except websockets.exceptions.InvalidStatus as error:
        result["status"] = error.response.status_code
    print(json.dumps(result), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--osc", required=True)
    parser.add_argument("--listen", default="/volume")
    parser.add_argument("--origin", help="sent as Origin, as a browser does")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
