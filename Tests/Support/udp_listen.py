"""What comes back to the UDP scripts (multicast-send.py, udp-exchange.py)."""
import select


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
