#!/usr/bin/env python3
"""Sends OSC packets over unicast UDP from a chosen source address and prints what comes back.

AccessTests run it inside a network namespace (`ip netns exec NS python3 ...`), so that a
datagram leaves from an address inside or outside paramd's `allow`. The packets are encoded by
the test and given here in hex, so this script knows nothing of OSC.

    udp-exchange.py --source 10.78.0.2 --to 10.77.0.1 --port 9000 [--listen 1.0] HEX...

Each HEX is sent as one datagram, in order. With --listen SECONDS, every datagram that comes
back is printed as `HOST PORT HEX` until SECONDS pass without one. Prints `sent N` after sending.
"""
import argparse
import ipaddress
import socket
import sys

from udp_listen import exchange, parse_exchange_arguments


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", default=None)
    parser.add_argument("--to", required=True)
    args = parse_exchange_arguments(parser)

    family = socket.AF_INET6 if ipaddress.ip_address(args.to).version == 6 else socket.AF_INET
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.bind((args.source or ("::" if family == socket.AF_INET6 else "0.0.0.0"), 0))
    exchange(s, (args.to, args.port), args.packets, args.listen)


if __name__ == "__main__":
    sys.exit(main())
