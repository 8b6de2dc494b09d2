"""OSC, the little the scripts need: a message from an address and str/int/float arguments,
and a message's address and arguments back. Shared by soak.py, bench-process.py (bench_load,
bench_processes) and plot-modulators.py, which import it from this folder, and by the Python
test scripts (Tests/Support/control_page_time.py), which import it from here too."""
import struct


def osc_string(text):
    b = text.encode() + b"\0"
    return b + b"\0" * (-len(b) % 4)


def osc_message(address, *args):
    """str → s, int → i, anything else → f."""
    tags, data = ",", b""
    for a in args:
        if isinstance(a, str):
            tags, data = tags + "s", data + osc_string(a)
        elif isinstance(a, int):
            tags, data = tags + "i", data + struct.pack(">i", a)
        else:
            tags, data = tags + "f", data + struct.pack(">f", a)
    return osc_string(address) + osc_string(tags) + data


def osc_decode(packet):
    """A message's address and arguments (s, S, f, i, h, d, T, F); ValueError for another type tag."""
    def string(at):
        end = packet.index(b"\0", at)
        return packet[at:end].decode(), (end + 4) & ~3
    address, at = string(0)
    tags, at = string(at)
    args = []
    for t in tags[1:]:
        if t in "sS":
            s, at = string(at)
            args.append(s)
        elif t in "fi":
            args.append(struct.unpack(">f" if t == "f" else ">i", packet[at:at + 4])[0])
            at += 4
        elif t in "hd":
            args.append(struct.unpack(">q" if t == "h" else ">d", packet[at:at + 8])[0])
            at += 8
        elif t in "TF":
            args.append(t == "T")
        else:
            raise ValueError(f"type tag {t!r}")
    return address, args
