#!/usr/bin/env python3
"""Sends OSC packets to a multicast group from one interface and prints what comes back.

The MultiHost tests run it inside a network namespace (`ip netns exec NS python3 ...`): the
"third host" that cues the others. The packets are encoded by the test (ParamCore's encoder)
and given here in hex, so this script knows nothing of OSC.

    multicast-send.py --interface eth0 --group 239.255.1.2 --port 9000 [--listen 1.5] HEX...

Each HEX is sent as one datagram, in order. With --listen SECONDS, every datagram that comes
back (a reply, unicast, from each paramd that got the packet) is printed as `HOST PORT HEX`
until SECONDS pass without one. Prints `sent N` after sending.
"""
import argparse
import ipaddress
import socket
import struct
import sys
import time

from udp_listen import exchange, parse_exchange_arguments


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--interface", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--ttl", type=int, default=1)
    args = parse_exchange_arguments(parser)

    group = ipaddress.ip_address(args.group)
    index = socket.if_nametoindex(args.interface)
    if group.version == 4:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # struct ip_mreqn: multiaddr, address, ifindex — sending needs only the interface.
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, struct.pack("=4s4si", b"\0" * 4, b"\0" * 4, index))
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, args.ttl)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        destination = (args.group, args.port)
    else:
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, index)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, args.ttl)
        destination = (args.group, args.port, 0, index)
    exchange(s, destination, args.packets, args.listen)


if __name__ == "__main__":
    sys.exit(main())
