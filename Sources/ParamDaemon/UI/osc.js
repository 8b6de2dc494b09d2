// OSC 1.0: a small encoder (messages of i, f, s, b) and decoder (messages and bundles; i f s b
// h d t T F N I) over ArrayBuffers.

export const OSC = (() => {
  const utf8 = new TextEncoder();
  const utf8d = new TextDecoder();
  const pad4 = (n) => (n + 3) & ~3;

  function encodeString(s) {
    const bytes = utf8.encode(s);
    const out = new Uint8Array(pad4(bytes.length + 1));
    out.set(bytes);
    return out;
  }

  // args: [{type: 'f', value: 0.5}, …], or plain numbers (float32) and strings.
  function encode(address, args = []) {
    const typed = args.map((a) => {
      if (a !== null && typeof a === 'object' && 'type' in a) return a;
      if (typeof a === 'string') return { type: 's', value: a };
      if (a instanceof Uint8Array) return { type: 'b', value: a };
      return { type: 'f', value: a };
    });
    const parts = [encodeString(address), encodeString(',' + typed.map((a) => a.type).join(''))];
    for (const a of typed) {
      switch (a.type) {
        case 'i': { const b = new Uint8Array(4); new DataView(b.buffer).setInt32(0, a.value | 0); parts.push(b); break; }
        case 'f': { const b = new Uint8Array(4); new DataView(b.buffer).setFloat32(0, a.value); parts.push(b); break; }
        case 's': parts.push(encodeString(String(a.value))); break;
        case 'b': {
          const data = a.value;
          const b = new Uint8Array(4 + pad4(data.length));
          new DataView(b.buffer).setInt32(0, data.length);
          b.set(data, 4);
          parts.push(b);
          break;
        }
        default: throw new Error('OSC: unsupported type ' + a.type);
      }
    }
    const size = parts.reduce((n, p) => n + p.length, 0);
    const out = new Uint8Array(size);
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out.buffer;
  }

  function readString(view, at) {
    let end = at;
    while (end < view.byteLength && view.getUint8(end) !== 0) end++;
    if (end >= view.byteLength) throw new Error('OSC: unterminated string');
    const s = utf8d.decode(new Uint8Array(view.buffer, view.byteOffset + at, end - at));
    return [s, pad4(end + 1)];
  }

  function decodeMessage(view) {
    let [address, at] = readString(view, 0);
    if (!address.startsWith('/')) throw new Error('OSC: bad address');
    const args = [];
    if (at >= view.byteLength) return { address, args };
    let tags;
    [tags, at] = readString(view, at);
    if (!tags.startsWith(',')) throw new Error('OSC: bad type tags');
    for (const t of tags.slice(1)) {
      switch (t) {
        case 'i': args.push(view.getInt32(at)); at += 4; break;
        case 'f': args.push(view.getFloat32(at)); at += 4; break;
        case 'h': args.push(Number(view.getBigInt64(at))); at += 8; break;
        case 'd': args.push(view.getFloat64(at)); at += 8; break;
        case 't': args.push(Number(view.getBigUint64(at))); at += 8; break;
        case 's': case 'S': { let s; [s, at] = readString(view, at); args.push(s); break; }
        case 'b': {
          const n = view.getInt32(at);
          args.push(new Uint8Array(view.buffer.slice(view.byteOffset + at + 4, view.byteOffset + at + 4 + n)));
          at += 4 + pad4(n);
          break;
        }
        case 'T': args.push(true); break;
        case 'F': args.push(false); break;
        case 'N': args.push(null); break;
        case 'I': args.push(Infinity); break;
        default: throw new Error('OSC: unknown type tag ' + t);
      }
    }
    return { address, args };
  }

  // The messages of a packet, bundles flattened depth first.
  function decode(buffer, depth = 0) {
    const view = buffer instanceof DataView ? buffer : new DataView(buffer);
    const first = view.byteLength >= 8 ? view.getUint8(0) : 0;
    if (first === 0x23 /* # */) {
      const [tag] = readString(view, 0);
      if (tag !== '#bundle' || depth > 8) throw new Error('OSC: bad bundle');
      const out = [];
      let at = 16;
      while (at + 4 <= view.byteLength) {
        const n = view.getInt32(at);
        out.push(...decode(new DataView(view.buffer, view.byteOffset + at + 4, n), depth + 1));
        at += 4 + n;
      }
      return out;
    }
    return [decodeMessage(view)];
  }

  return { encode, decode };
})();
