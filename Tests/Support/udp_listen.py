"""What the UDP scripts (multicast-send.py, udp-exchange.py) share: their last arguments, the
sending, and what comes back."""
import select


def parse_exchange_arguments(parser):
    """Adds what every UDP script takes after its own options (`--port`, `--listen`, the hex
    packets) to `parser`, and parses the command line."""
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--listen", type=float, default=0)
    parser.add_argument("packets", nargs="+")
    return parser.parse_args()


def exchange(s, destination, packets, seconds):
    """Sends each hex packet to `destination` from socket `s` as one datagram, in order, prints
    `sent N`, then what comes back within `seconds` (`print_replies`)."""
    for packet in packets:
        s.sendto(bytes.fromhex(packet), destination)
    print(f"sent {len(packets)}", flush=True)
    print_replies(s, seconds)


def print_replies(s, seconds):
    """Prints every datagram that comes back to socket `s` as `HOST PORT HEX`, until `seconds`
    pass without one (none at all when `seconds` is 0)."""
    if seconds <= 0:
        return
    while True:
        ready, _, _ = select.select([s], [], [], seconds)
        if not ready:
            break
        data, source = s.recvfrom(65536)
        print(f"{source[0]} {source[1]} {data.hex()}", flush=True)
