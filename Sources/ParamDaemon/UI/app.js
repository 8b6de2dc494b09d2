// paramd's control page (SPEC §9): one slider per parameter, whose thumb shows the sounding value
// (streamed over the WebSocket with LISTEN) and whose marker shows the target. Plain JavaScript,
// no dependencies: everything here is served from the paramd binary. docs/CONTROL-PAGE.md.
'use strict';

// ---------------------------------------------------------------------------------------------
// OSC 1.0: a small encoder (messages of i, f, s, b) and decoder (messages and bundles; i f s b
// h d t T F N I) over ArrayBuffers.

const OSC = (() => {
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

// ---------------------------------------------------------------------------------------------
// Timing curves (SPEC §4.2), evaluated here only to draw them: cubic Béziers, Penner's
// easings (easings.net), CSS steps, springs (the closed form of docs/CURVES.md), curvature.

const Curves = (() => {
  function bezier(x1, y1, x2, y2) {
    const cx = 3 * x1, bx = 3 * (x2 - x1) - cx, ax = 1 - cx - bx;
    const cy = 3 * y1, by = 3 * (y2 - y1) - cy, ay = 1 - cy - by;
    const sx = (t) => ((ax * t + bx) * t + cx) * t;
    const sy = (t) => ((ay * t + by) * t + cy) * t;
    const dx = (t) => (3 * ax * t + 2 * bx) * t + cx;
    return (x) => {
      if (x <= 0) return 0;
      if (x >= 1) return 1;
      let t = x;
      for (let i = 0; i < 8; i++) {
        const e = sx(t) - x, d = dx(t);
        if (Math.abs(e) < 1e-7) return sy(t);
        if (Math.abs(d) < 1e-6) break;
        t -= e / d;
      }
      let lo = 0, hi = 1;
      t = x;
      for (let i = 0; i < 60; i++) {
        if (sx(t) < x) lo = t; else hi = t;
        t = (lo + hi) / 2;
      }
      return sy(t);
    };
  }

  const bounceOut = (x) => {
    const n1 = 7.5625, d1 = 2.75;
    if (x < 1 / d1) return n1 * x * x;
    if (x < 2 / d1) { const u = x - 1.5 / d1; return n1 * u * u + 0.75; }
    if (x < 2.5 / d1) { const u = x - 2.25 / d1; return n1 * u * u + 0.9375; }
    const u = x - 2.625 / d1; return n1 * u * u + 0.984375;
  };

  function power(n) {
    return {
      In: (x) => x ** n,
      Out: (x) => 1 - (1 - x) ** n,
      InOut: (x) => (x < 0.5 ? 2 ** (n - 1) * x ** n : 1 - (-2 * x + 2) ** n / 2),
    };
  }
  const c4 = (2 * Math.PI) / 3, c5 = (2 * Math.PI) / 4.5;
  const penner = {
    Quad: power(2), Cubic: power(3), Quart: power(4), Quint: power(5),
    Sine: {
      In: (x) => 1 - Math.cos((x * Math.PI) / 2),
      Out: (x) => Math.sin((x * Math.PI) / 2),
      InOut: (x) => -(Math.cos(Math.PI * x) - 1) / 2,
    },
    Expo: {
      In: (x) => 2 ** (10 * x - 10),
      Out: (x) => 1 - 2 ** (-10 * x),
      InOut: (x) => (x < 0.5 ? 2 ** (20 * x - 10) / 2 : (2 - 2 ** (-20 * x + 10)) / 2),
    },
    Circ: {
      In: (x) => 1 - Math.sqrt(1 - x * x),
      Out: (x) => Math.sqrt(1 - (x - 1) ** 2),
      InOut: (x) => (x < 0.5 ? (1 - Math.sqrt(1 - (2 * x) ** 2)) / 2 : (Math.sqrt(1 - (-2 * x + 2) ** 2) + 1) / 2),
    },
    Elastic: {
      In: (x) => -(2 ** (10 * x - 10)) * Math.sin((x * 10 - 10.75) * c4),
      Out: (x) => 2 ** (-10 * x) * Math.sin((x * 10 - 0.75) * c4) + 1,
      InOut: (x) => (x < 0.5
        ? -(2 ** (20 * x - 10) * Math.sin((20 * x - 11.125) * c5)) / 2
        : (2 ** (-20 * x + 10) * Math.sin((20 * x - 11.125) * c5)) / 2 + 1),
    },
    Bounce: {
      In: (x) => 1 - bounceOut(1 - x),
      Out: bounceOut,
      InOut: (x) => (x < 0.5 ? (1 - bounceOut(1 - 2 * x)) / 2 : (1 + bounceOut(2 * x - 1)) / 2),
    },
  };
  function back(direction, s = 1.70158) {
    if (direction === 'In') return (x) => (s + 1) * x ** 3 - s * x * x;
    if (direction === 'Out') return (x) => { const u = x - 1; return 1 + (s + 1) * u ** 3 + s * u * u; };
    const c2 = s * 1.525;
    return (x) => (x < 0.5
      ? ((2 * x) ** 2 * ((c2 + 1) * 2 * x - c2)) / 2
      : ((2 * x - 2) ** 2 * ((c2 + 1) * (2 * x - 2) + c2) + 2) / 2);
  }

  // The spring m·x″ + c·x′ + k·(x − 1) = 0 from x(0) = 0, x′(0) = v: position at t seconds, and
  // the time its remaining motion's envelope falls below 1e-4 of the distance.
  function spring(m, k, c, v) {
    const w0 = Math.sqrt(k / m), sigma = c / (2 * m), zeta = sigma / w0, a = sigma - v;
    let e, envelope;
    if (zeta < 1) {
      const wd = w0 * Math.sqrt(1 - zeta * zeta);
      e = (t) => Math.exp(-sigma * t) * (Math.cos(wd * t) + (a * Math.sin(wd * t)) / wd);
      envelope = (t) => Math.exp(-sigma * t) * Math.sqrt(1 + (a / wd) ** 2);
    } else if (zeta === 1) {
      e = (t) => Math.exp(-sigma * t) * (1 + a * t);
      envelope = (t) => Math.exp(-sigma * t) * (1 + Math.abs(a) * t);
    } else {
      const g = w0 * Math.sqrt(zeta * zeta - 1);
      e = (t) => Math.exp(-sigma * t) * (Math.cosh(g * t) + (a * Math.sinh(g * t)) / g);
      envelope = (t) => Math.exp(-(sigma - g) * t) * (1 + Math.abs(a) / g);
    }
    let hi = 0.001;
    while (envelope(hi) >= 1e-4 && hi < 60) hi *= 2;
    let lo = 0;
    for (let i = 0; i < 50; i++) { const mid = (lo + hi) / 2; if (envelope(mid) >= 1e-4) lo = mid; else hi = mid; }
    return { position: (t) => 1 - e(t), settle: Math.min(hi, 60) };
  }

  // UIKit's spring(dampingRatio, velocity) fitted to `seconds`: ω0 such that it settles then.
  function fittedSpring(zeta, v, seconds) {
    const T = Math.max(seconds, 1e-3);
    let w0 = spring(1, 1, 2 * zeta, 0).settle / T;
    for (let i = 0; i < 30 && v !== 0; i++) w0 = spring(1, 1, 2 * zeta, v / w0).settle / T;
    const s = spring(1, w0 * w0, 2 * zeta * w0, v);
    return (x) => s.position(x * T);
  }

  function steps(n, position = 'jump-end') {
    const jumps = { 'jump-start': [1, n], start: [1, n], 'jump-end': [0, n], end: [0, n],
                    'jump-none': [0, n - 1], 'jump-both': [1, n + 1] }[position] || [0, n];
    return (x) => {
      if (x >= 1) return 1;
      if (x < 0) return 0;
      return Math.min(1, (Math.floor(x * n) + jumps[0]) / jumps[1]);
    };
  }

  const named = {
    linear: (x) => x,
    default: bezier(0.25, 0.1, 0.25, 1), ease: bezier(0.25, 0.1, 0.25, 1),
    easeIn: bezier(0.42, 0, 1, 1), 'ease-in': bezier(0.42, 0, 1, 1),
    easeOut: bezier(0, 0, 0.58, 1), 'ease-out': bezier(0, 0, 0.58, 1),
    easeInEaseOut: bezier(0.42, 0, 0.58, 1), 'ease-in-out': bezier(0.42, 0, 0.58, 1),
  };

  // A curve string → {f(progress), seconds (own running time, springs), note}; null if unknown.
  function parse(text, duration) {
    const s = String(text).replace(/\s+/g, '');
    if (named[s]) return { f: named[s] };
    let m = /^(easeIn|easeOut|easeInOut)(Quad|Cubic|Quart|Quint|Sine|Expo|Circ|Elastic|Bounce)$/.exec(s);
    if (m) { const f = penner[m[2]][m[1].slice(4)]; return { f: (x) => (x <= 0 ? 0 : x >= 1 ? 1 : f(x)) }; }
    m = /^(easeIn|easeOut|easeInOut)Back(?:\(([-\d.e+]+)\))?$/.exec(s);
    if (m) { const f = back(m[1].slice(4), m[2] === undefined ? 1.70158 : Number(m[2])); return { f: (x) => (x <= 0 ? 0 : x >= 1 ? 1 : f(x)) }; }
    const call = /^([a-z-]+)\(([^()]*)\)$/.exec(s);
    if (!call) return null;
    const args = call[2].split(',');
    const nums = args.map(Number);
    switch (call[1]) {
      case 'cubic-bezier':
        if (nums.length === 4 && nums.every(Number.isFinite)) return { f: bezier(...nums) };
        return null;
      case 'steps': {
        const n = Math.round(nums[0]);
        if (!(n >= 1)) return null;
        return { f: steps(n, args[1]) };
      }
      case 'spring':
        if (nums.every(Number.isFinite) && (nums.length === 3 || nums.length === 4) && nums[0] > 0 && nums[1] > 0 && nums[2] >= 0) {
          const sp = spring(nums[0], nums[1], nums[2], nums[3] || 0);
          return { f: (x) => sp.position(x * sp.settle), seconds: sp.settle, note: 'settles in its own time' };
        }
        if (nums.every(Number.isFinite) && (nums.length === 1 || nums.length === 2) && nums[0] > 0) {
          return { f: fittedSpring(nums[0], nums[1] || 0, duration) };
        }
        return null;
      case 'curve':
        if (nums.length === 1 && Number.isFinite(nums[0])) {
          const c = nums[0];
          if (Math.abs(c) < 0.001) return { f: (x) => x };
          return { f: (x) => (1 - Math.exp(c * x)) / (1 - Math.exp(c)) };
        }
        return null;
      default: return null;
    }
  }

  const menu = [
    ['Core Animation', ['default', 'linear', 'easeIn', 'easeOut', 'easeInEaseOut']],
    ...['Sine', 'Quad', 'Cubic', 'Quart', 'Quint', 'Expo', 'Circ', 'Back', 'Elastic', 'Bounce']
      .map((e) => [e, ['easeIn', 'easeOut', 'easeInOut'].map((d) => d + e)]),
    ['Spring', ['spring(0.5)', 'spring(0.3, 2)', 'spring(1, 100, 10)', 'spring(1, 300, 6)']],
    ['Other', ['steps(4)', 'curve(-4)', 'curve(4)', 'cubic-bezier(0.3, 0, 0.2, 1)']],
  ];

  return { parse, menu };
})();

// ---------------------------------------------------------------------------------------------
// A parameter's domain: position on the track (0…1) ↔ value.

const DB_FLOOR = -60; // a db-domain track whose minimum is 0 spans −60 dB … max; its left end is silence

function makeScale(p) {
  const { min, max } = p;
  if (p.domain === 'log' && min > 0 && max > min) {
    const l = Math.log(max / min);
    return { toU: (v) => Math.log(Math.max(v, min) / min) / l, toV: (u) => min * Math.exp(u * l) };
  }
  if (p.domain === 'db' && max > 0) {
    const dbMax = 20 * Math.log10(max);
    const dbMin = min > 0 ? 20 * Math.log10(min) : Math.min(DB_FLOOR, dbMax - 1);
    const span = dbMax - dbMin;
    return {
      toU: (v) => (v <= min ? 0 : v <= 0 ? 0 : Math.max(0, (20 * Math.log10(v) - dbMin) / span)),
      toV: (u) => (u <= 0 ? min : 10 ** ((dbMin + u * span) / 20)),
    };
  }
  return { toU: (v) => (v - min) / (max - min), toV: (u) => min + u * (max - min) };
}

const clamp01 = (u) => Math.min(1, Math.max(0, u));

// A target from a track position: rounded to the smallest step of 1, 2 or 5 × 10^k that is at
// least what one pixel of the track spans there, so a press lands on tidy values (a press at
// 20 % of a 0…1 track asks for 0.2, not 0.19945) and a drag still moves by about a pixel.
function tidy(p, u, pixels) {
  const v = p.scale.toV(clamp01(u));
  if (u <= 0) return p.min;
  if (u >= 1) return p.max;
  const dv = Math.abs(p.scale.toV(clamp01(u + 1 / Math.max(pixels, 50))) - v) || (p.max - p.min) / 1000;
  const k = 10 ** Math.floor(Math.log10(dv));
  const step = [1, 2, 5, 10].map((m) => m * k).find((s) => s >= dv * (1 - 1e-9)) || 10 * k;
  const r = Math.round(v / step) * step;
  return Math.min(p.max, Math.max(p.min, Number(r.toPrecision(12))));
}

function formatValue(p, v) {
  if (!Number.isFinite(v)) return '–';
  const unit = p.unit || '';
  if (/^hz$/i.test(unit)) {
    if (v >= 1000) return (v / 1000).toFixed(v >= 10000 ? 1 : 2) + ' kHz';
    return v.toFixed(v >= 100 ? 0 : 1) + ' Hz';
  }
  const span = p.max - p.min;
  const decimals = Math.min(4, Math.max(0, 3 - Math.ceil(Math.log10(span || 1))));
  let s = v.toFixed(decimals);
  if (/^-0\.?0*$/.test(s)) s = s.slice(1);
  if (p.name === 'pan') {
    if (Math.abs(v) < 0.5 * 10 ** -decimals) return 'centre';
    return (v < 0 ? 'L ' : 'R ') + Math.abs(v).toFixed(decimals);
  }
  return unit && !/^(gain|pan)$/.test(unit) ? s + ' ' + unit : s;
}

function formatDb(v) {
  if (!(v > 0)) return '−∞ dB';
  const db = 20 * Math.log10(v);
  return (db < 0 ? '−' : '') + Math.abs(db).toFixed(1) + ' dB';
}

// ---------------------------------------------------------------------------------------------
// Page state.

const BUILT_IN_ORDER = ['volume', 'tone', 'frequency', 'pan', 'input'];
const $ = (id) => document.getElementById(id);

const state = {
  params: new Map(), // name → parameter (with its DOM)
  ws: null,
  connected: false,
  attempt: 0,
  retryTimer: 0,
  hostName: 'paramd',
  everConnected: false,
  hasTempo: false, // the namespace has /tempo (SPEC §14)
};

// The motion chosen for new targets: curve null = each parameter's default action; duration
// null = the default's, a number = seconds, a string = musical time (`1m`, `8t`: SPEC §14).
const motion = { curve: null, duration: null };

// ---------------------------------------------------------------------------------------------
// Musical time (SPEC §14, docs/MUSICAL-TIME.md): the notation the duration control offers, and
// the timeline the page follows to show the tempo and the beat. paramd tells the tempo (LISTEN on
// /tempo streams every change, whoever made it) and a beat anchor (/status's beat, asked when
// the page connects, when the tempo changes and every few seconds while the page is shown);
// between anchors the beat runs on here at the tempo, drawn on each animation frame.

const MUSICAL_DURATIONS = ['16n', '8t', '8n', '4t', '8n.', '4n', '4n.', '2n', '1m', '2m', '4m'];

// `Nm` bars, `Nn` a 1/N note, `Nb` beats, with `t` (× 2/3) or `.` (× 1.5) after `n`: beats; NaN
// if the text is not musical time.
function musicalBeats(text, beatsPerBar) {
  const m = /^(\d+(?:\.\d+)?)(m|n|b)(t|\.)?$/.exec(String(text));
  if (!m || (m[3] && m[2] !== 'n')) return NaN;
  const n = Number(m[1]);
  if (!(n > 0)) return NaN;
  const beats = m[2] === 'm' ? n * beatsPerBar : m[2] === 'n' ? 4 / n : n;
  return beats * (m[3] === 't' ? 2 / 3 : m[3] === '.' ? 1.5 : 1);
}

const timeline = {
  bpm: NaN,
  beatsPerBar: 4,
  anchorBeat: NaN, // the beat at anchorAt (performance.now() milliseconds)
  anchorAt: 0,
  statusSentAt: NaN, // when the /status whose reply gives the next anchor was sent
  askedAt: -Infinity,
  askTimer: 0,
  frame: 0,
  anchorTimer: 0,
};
const ANCHOR_EVERY_MS = 4000;
const ANCHOR_GAP_MS = 500;

// A duration as seconds at the tempo now (a musical one), for the plot and its caption.
function durationSeconds(d) {
  if (typeof d !== 'string') return d;
  const bpm = Number.isFinite(timeline.bpm) ? timeline.bpm : 120;
  return (musicalBeats(d, timeline.beatsPerBar) * 60) / bpm;
}

// A duration as an OSC argument: seconds as a float, musical time as a string.
const durationArg = (d) => (typeof d === 'string' ? { type: 's', value: d } : { type: 'f', value: d });

function beatAt(now) {
  if (!Number.isFinite(timeline.anchorBeat) || !Number.isFinite(timeline.bpm)) return NaN;
  return timeline.anchorBeat + ((now - timeline.anchorAt) / 60000) * timeline.bpm;
}

// One /status at a time and at most one every ANCHOR_GAP_MS (a gliding tempo streams many
// /tempo messages); one asked for too soon goes out when the gap has passed.
function askBeatAnchor() {
  if (timeline.askTimer) return;
  const wait = timeline.askedAt + ANCHOR_GAP_MS - performance.now();
  if (wait > 0) {
    timeline.askTimer = setTimeout(() => { timeline.askTimer = 0; askBeatAnchor(); }, wait);
    return;
  }
  if (send('/status', [])) timeline.statusSentAt = timeline.askedAt = performance.now();
}

// paramd's tempo, from LISTEN on /tempo or a /tempo/get reply: the beat runs on from where it
// is at the new tempo until the next anchor, asked for at once.
function adoptTempo(bpm) {
  const now = performance.now();
  if (bpm === timeline.bpm) return;
  const beat = beatAt(now);
  if (Number.isFinite(beat)) { timeline.anchorBeat = beat; timeline.anchorAt = now; }
  timeline.bpm = bpm;
  const box = $('tempo');
  box.dataset.bpm = String(bpm);
  $('tempo-bpm').textContent = bpm.toFixed(Math.abs(bpm - Math.round(bpm)) < 0.05 ? 0 : 1);
  if (typeof motion.duration === 'string') showDurationText();
  askBeatAnchor();
}

// /status's reply: its beat held when paramd answered, taken as the middle of the round trip
// (paramd's beat is as of the end of the last period: at most one period older).
function adoptStatus(args) {
  const pairs = new Map();
  for (let i = 0; i + 1 < args.length; i += 2) pairs.set(args[i], args[i + 1]);
  const beat = Number(pairs.get('beat')), bpm = Number(pairs.get('tempo'));
  if (!Number.isFinite(beat) || !Number.isFinite(bpm)) return;
  const now = performance.now();
  const at = Number.isNaN(timeline.statusSentAt) ? now : (timeline.statusSentAt + now) / 2;
  timeline.statusSentAt = NaN;
  timeline.anchorBeat = beat;
  timeline.anchorAt = at;
  if (bpm !== timeline.bpm) adoptTempo(bpm);
  $('tempo').dataset.timeline = String(pairs.get('timeline') ?? '');
  drawBeat();
}

// The beat indicator: one pip per beat of the bar, the current one lit and pulsing.
function drawBeat() {
  const beat = beatAt(performance.now());
  const box = $('beat');
  if (!Number.isFinite(beat)) return;
  const pips = box.children;
  if (pips.length !== timeline.beatsPerBar) {
    box.replaceChildren(...Array.from({ length: timeline.beatsPerBar }, () => document.createElement('span')));
  }
  const inBar = ((Math.floor(beat) % timeline.beatsPerBar) + timeline.beatsPerBar) % timeline.beatsPerBar;
  box.dataset.beat = beat.toFixed(4);
  box.dataset.beatInBar = String(inBar + 1);
  box.setAttribute('aria-label', `beat ${inBar + 1} of ${timeline.beatsPerBar}`);
  const pulse = 1 - (beat - Math.floor(beat));
  for (let i = 0; i < box.children.length; i++) {
    const pip = box.children[i];
    const on = i === inBar;
    pip.className = on ? 'on' : '';
    pip.style.opacity = on ? (0.45 + 0.55 * pulse).toFixed(3) : '';
  }
}

function runBeat() {
  if (timeline.frame) return;
  const step = () => {
    timeline.frame = 0;
    if (document.hidden) return;
    drawBeat();
    timeline.frame = requestAnimationFrame(step);
  };
  timeline.frame = requestAnimationFrame(step);
}

// On connecting: the tempo (and its changes), a first anchor, and a fresh one every few seconds
// while the page is shown and live.
function followTimeline(ws) {
  ws.send(JSON.stringify({ COMMAND: 'LISTEN', DATA: '/tempo' }));
  timeline.statusSentAt = NaN;
  timeline.askedAt = -Infinity;
  clearTimeout(timeline.askTimer);
  timeline.askTimer = 0;
  askBeatAnchor();
  clearInterval(timeline.anchorTimer);
  timeline.anchorTimer = setInterval(() => {
    if (document.hidden || !state.connected) return;
    askBeatAnchor();
    refreshModulators(); // one set or stopped by another controller shows too
  }, ANCHOR_EVERY_MS);
  runBeat();
}

// ---------------------------------------------------------------------------------------------
// Namespace: the parameters from OSCQuery's `GET /`.

function parametersFrom(root) {
  const found = [];
  const visit = (node) => {
    if (!node || typeof node !== 'object') return;
    const path = node.FULL_PATH;
    if (typeof path === 'string' && 'PARAMD_DOMAIN' in node) found.push(node);
    for (const child of Object.values(node.CONTENTS || {})) visit(child);
  };
  visit(root);
  if (found.length === 0) {
    // A server without paramd's own attributes: the top-level float nodes with a range.
    for (const child of Object.values(root.CONTENTS || {})) {
      if (child.TYPE === 'f' && Array.isArray(child.RANGE) && child.CONTENTS && child.CONTENTS.keyframes) found.push(child);
    }
  }
  const params = found.map((node) => {
    const range = (node.RANGE && node.RANGE[0]) || {};
    const name = node.FULL_PATH.replace(/^\//, '');
    const p = {
      name,
      path: node.FULL_PATH,
      min: Number(range.MIN ?? 0),
      max: Number(range.MAX ?? 1),
      unit: (Array.isArray(node.UNIT) ? node.UNIT[0] : node.UNIT) || '',
      description: node.DESCRIPTION || '',
      domain: node.PARAMD_DOMAIN || 'linear',
      duration: Number(node.PARAMD_DURATION ?? 0.25),
      curve: node.PARAMD_CURVE || 'default',
      value: Array.isArray(node.VALUE) ? Number(node.VALUE[0]) : NaN,
      knownTarget: node.PARAMD_TARGET === undefined ? NaN : Number(node.PARAMD_TARGET),
      modulatable: !!(node.CONTENTS && node.CONTENTS.mod && node.CONTENTS.mod.CONTENTS && node.CONTENTS.mod.CONTENTS.get),
    };
    p.scale = makeScale(p);
    return p;
  });
  const rank = (p) => { const i = BUILT_IN_ORDER.indexOf(p.name); return i < 0 ? BUILT_IN_ORDER.length : i; };
  return params
    .map((p, i) => [p, i])
    .sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1])
    .map(([p]) => p);
}

// ---------------------------------------------------------------------------------------------
// Sliders.

function buildSlider(p) {
  const row = document.createElement('div');
  row.className = 'param';
  row.dataset.param = p.name;
  const id = 'slider-' + p.name;
  row.innerHTML = `
    <div class="param-head">
      <label class="param-name" id="${id}-label" for="${id}"></label>
      <span class="param-readout"><span class="value" data-role="value"></span><span class="sub" data-role="sub"></span></span>
    </div>
    <div class="slider" id="${id}" role="slider" tabindex="0" aria-labelledby="${id}-label">
      <div class="rail"><div class="fill"></div></div>
      <div class="mod-band" aria-hidden="true" hidden></div>
      <div class="marker" aria-hidden="true"></div>
      <div class="thumb" aria-hidden="true"></div>
    </div>
    <div class="scale" aria-hidden="true"><span data-role="min"></span><span class="target-text" data-role="target"></span><span data-role="max"></span></div>`;
  row.querySelector('.param-name').textContent = p.name;
  if (p.description) row.title = p.description;
  p.row = row;
  p.inFlight = []; // targets sent and not yet heard back (adoptTarget)
  p.slider = row.querySelector('.slider');
  p.thumb = row.querySelector('.thumb');
  p.marker = row.querySelector('.marker');
  p.fill = row.querySelector('.fill');
  p.valueText = row.querySelector('[data-role=value]');
  p.subText = row.querySelector('[data-role=sub]');
  p.targetText = row.querySelector('[data-role=target]');
  row.querySelector('[data-role=min]').textContent = formatValue(p, p.min);
  row.querySelector('[data-role=max]').textContent = formatValue(p, p.max);
  p.slider.setAttribute('aria-valuemin', String(p.min));
  p.slider.setAttribute('aria-valuemax', String(p.max));
  p.slider.dataset.domain = p.domain;
  if (p.domain === 'log') addLogTicks(p);
  p.band = row.querySelector('.mod-band');
  p.mod = null;
  if (p.modulatable) buildModPanel(p);
  attachPointer(p);
  attachKeys(p);
  return row;
}

function addLogTicks(p) {
  const rail = p.slider.querySelector('.rail');
  for (let d = 10 ** Math.ceil(Math.log10(p.min)); d < p.max; d *= 10) {
    for (const m of [1]) {
      const v = d * m;
      if (v <= p.min || v >= p.max) continue;
      const tick = document.createElement('span');
      tick.className = 'tick';
      tick.style.left = (p.scale.toU(v) * 100).toFixed(3) + '%';
      rail.appendChild(tick);
    }
  }
}

function showValue(p, v) {
  p.value = v;
  const u = clamp01(p.scale.toU(v));
  p.thumb.style.left = (u * 100).toFixed(4) + '%';
  p.fill.style.width = (u * 100).toFixed(4) + '%';
  p.slider.dataset.value = String(v);
  p.valueText.textContent = formatValue(p, v);
  p.subText.textContent = p.name === 'volume' || p.domain === 'db' ? formatDb(v) : '';
  p.row.classList.toggle('moving', Number.isFinite(p.target) && Math.abs(p.scale.toU(p.target) - u) > 0.002);
}

function showTarget(p, t) {
  p.target = t;
  const u = clamp01(p.scale.toU(t));
  p.marker.style.left = (u * 100).toFixed(4) + '%';
  p.marker.hidden = false;
  p.slider.dataset.target = String(t);
  p.slider.setAttribute('aria-valuenow', String(t));
  p.slider.setAttribute('aria-valuetext', formatValue(p, t));
  p.targetText.textContent = 'target ' + formatValue(p, t);
  if (Number.isFinite(p.value)) showValue(p, p.value);
  if (p.mod) drawBand(p);
}

// ---------------------------------------------------------------------------------------------
// Sending targets.

function send(address, args) {
  if (!state.ws || state.ws.readyState !== WebSocket.OPEN) return false;
  state.ws.send(OSC.encode(address, args));
  return true;
}

function sendTarget(p, value) {
  const v = Math.min(p.max, Math.max(p.min, value));
  const args = [{ type: 'f', value: v }];
  if (motion.curve !== null || motion.duration !== null) {
    args.push(durationArg(motion.duration ?? p.duration));
    if (motion.curve !== null) args.push({ type: 's', value: motion.curve });
  }
  if (!send(p.path, args)) return;
  p.inFlight.push(Math.fround(v));
  if (p.inFlight.length > 64) p.inFlight.shift();
  showTarget(p, v);
  Plot.run(durationSeconds(motion.duration ?? p.duration));
}

function refreshTarget(p) {
  if (p.getPending) return;
  p.getPending = true;
  send(p.path + '/get', []);
}

// paramd's target, streamed over LISTEN whenever it changes (whoever changed it) and in answer
// to /get. Targets this page sent come back in the order sent: while a later one is still on its
// way, an earlier one's echo must not pull the marker back. A target this page did not send
// (another controller, MIDI, a stop) moves the marker at once.
function adoptTarget(p, t) {
  const i = p.inFlight.indexOf(Math.fround(t));
  if (i >= 0) {
    p.inFlight.splice(0, i + 1);
    if (p.inFlight.length > 0) return;
  } else {
    p.inFlight.length = 0;
  }
  showTarget(p, t);
}

// Pointer: mouse and pen press = a target at once; touch sends on release or once the finger
// moves sideways (so scrolling a phone's page past a track sends nothing). Dragging sends at most
// one target every 40 ms, and the last position on release.
function attachPointer(p) {
  const el = p.slider;
  let drag = null;
  const uAt = (e) => { const r = el.getBoundingClientRect(); return clamp01((e.clientX - r.left) / r.width); };
  const width = () => el.getBoundingClientRect().width;
  const emit = (u) => {
    const v = tidy(p, u, width());
    if (drag) { drag.lastSent = performance.now(); drag.pending = null; }
    if (v !== p.target || !drag || !drag.sentOnce) sendTarget(p, v);
    if (drag) drag.sentOnce = true;
  };
  const flush = () => { if (drag && drag.pending !== null) emit(drag.pending); };

  el.addEventListener('pointerdown', (e) => {
    if (!state.connected || e.button > 0) return;
    e.preventDefault();
    el.focus({ preventScroll: true, focusVisible: false });
    try { el.setPointerCapture(e.pointerId); } catch (_) { /* synthetic events */ }
    drag = { id: e.pointerId, touch: e.pointerType === 'touch', x0: e.clientX, armed: e.pointerType !== 'touch',
             lastSent: 0, pending: null, timer: 0, sentOnce: false };
    el.classList.add('active');
    if (drag.armed) emit(uAt(e));
  });
  el.addEventListener('pointermove', (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    if (!drag.armed) {
      if (Math.abs(e.clientX - drag.x0) < 6) return;
      drag.armed = true;
    }
    const u = uAt(e);
    const wait = 40 - (performance.now() - drag.lastSent);
    if (wait <= 0) { emit(u); return; }
    drag.pending = u;
    if (!drag.timer) drag.timer = setTimeout(() => { if (drag) { drag.timer = 0; flush(); } }, wait);
  });
  const end = (e, cancelled) => {
    if (!drag || e.pointerId !== drag.id) return;
    clearTimeout(drag.timer);
    if (!cancelled) {
      if (!drag.armed) emit(uAt(e)); // a tap
      else flush();
    }
    drag = null;
    el.classList.remove('active');
  };
  el.addEventListener('pointerup', (e) => end(e, false));
  el.addEventListener('pointercancel', (e) => end(e, true));
  el.addEventListener('lostpointercapture', (e) => { if (drag && e.pointerId === drag.id) end(e, false); });
}

// Keyboard: arrows move the target 1 % of the track (Shift: 0.1 %), Page Up/Down 10 %,
// Home/End to the ends; from the current target, in the parameter's domain.
function attachKeys(p) {
  p.slider.addEventListener('keydown', (e) => {
    if (!state.connected) return;
    const fine = e.shiftKey ? 0.001 : 0.01;
    const steps = { ArrowRight: fine, ArrowUp: fine, ArrowLeft: -fine, ArrowDown: -fine, PageUp: 0.1, PageDown: -0.1 };
    const from = Number.isFinite(p.target) ? p.target : p.value;
    let v;
    if (e.key in steps) {
      const u = clamp01(p.scale.toU(from) + steps[e.key]);
      v = tidy(p, u, 1 / Math.abs(steps[e.key]) * 4);
      if (v === from) v = p.scale.toV(u); // a step too small for tidy rounding
    } else if (e.key === 'Home') v = p.min;
    else if (e.key === 'End') v = p.max;
    else return;
    e.preventDefault();
    sendTarget(p, v);
  });
}

// ---------------------------------------------------------------------------------------------
// What paramd sends: values, targets, /done, /warning, /error.

function receive(data) {
  let messages;
  try { messages = OSC.decode(data); } catch (err) { console.warn('paramd: undecodable packet', err); return; }
  for (const m of messages) handle(m);
}

function handle(m) {
  if (handleScene(m)) return;
  if (m.address === '/tempo' && typeof m.args[0] === 'number') { adoptTempo(m.args[0]); return; }
  if (m.address === '/status') { adoptStatus(m.args); return; }
  const parts = m.address.split('/');
  const p = state.params.get(parts[1]);
  const arg = m.args[0];
  if (p && parts.length === 2 && typeof arg === 'number') {
    showValue(p, arg);
    if (!Number.isFinite(p.target)) showTarget(p, arg);
    return;
  }
  if (p && parts.length === 3 && parts[2] === 'target' && typeof arg === 'number') {
    p.getPending = false;
    adoptTarget(p, arg);
    return;
  }
  if (p && parts.length === 3 && parts[2] === 'mod' && typeof arg === 'string') {
    adoptModulator(p, m.args);
    return;
  }
  if (p && parts.length === 3 && parts[2] === 'done') {
    const finished = arg === 1 || arg === true;
    p.row.classList.remove('settled');
    void p.row.offsetWidth; // restart the animation
    p.row.classList.add('settled');
    toast(finished ? 'done' : 'info', p.name,
      finished ? 'reached ' + formatValue(p, p.value) : 'interrupted at ' + formatValue(p, p.value), 'done-' + p.name);
    return;
  }
  if (m.address === '/warning' || m.address === '/error') {
    const kind = m.address.slice(1);
    toast(kind, String(m.args[0] ?? ''), String(m.args[1] ?? ''), kind);
    // A refused or clamped target: show the one paramd has.
    const about = state.params.get(String(m.args[0] ?? '').split('/')[1]);
    if (about) { about.inFlight.length = 0; about.getPending = false; refreshTarget(about); }
  }
}

// ---------------------------------------------------------------------------------------------
// Toasts: a few at a time, each for about three seconds; one per key (a parameter's /done).

function toast(kind, title, text, key) {
  const box = $('toasts');
  let el = key ? box.querySelector(`[data-key="${CSS.escape(key)}"]`) : null;
  if (!el) {
    el = document.createElement('div');
    el.className = 'toast';
    if (key) el.dataset.key = key;
    el.innerHTML = '<span class="toast-icon" aria-hidden="true"></span><strong></strong> <span class="toast-text"></span>';
    box.appendChild(el);
    while (box.children.length > 4) box.firstElementChild.remove();
  }
  el.dataset.kind = kind;
  el.querySelector('strong').textContent = title;
  el.querySelector('.toast-text').textContent = text;
  el.classList.remove('leaving');
  clearTimeout(el._timer);
  el._timer = setTimeout(() => {
    el.classList.add('leaving');
    el._timer = setTimeout(() => el.remove(), 400);
  }, kind === 'error' || kind === 'warning' ? 5000 : 2500);
}

// ---------------------------------------------------------------------------------------------
// The curve picker and its plot.

const Plot = (() => {
  const canvas = $('plot');
  const caption = $('plot-caption');
  let curve = null;
  let runStart = 0, runSeconds = 0, frame = 0;

  function current() {
    const text = motion.curve ?? 'default';
    const duration = durationSeconds(motion.duration ?? (state.params.get('volume')?.duration ?? 0.25));
    return { text, duration, parsed: Curves.parse(text, duration) };
  }

  function draw(progressDot) {
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
    }
    const g = canvas.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    const css = getComputedStyle(document.documentElement);
    const colour = (name) => css.getPropertyValue(name).trim();
    const c = curve || current();
    const f = c.parsed ? c.parsed.f : (x) => x;
    const n = Math.max(64, Math.round(w * 1.5));
    const ys = [];
    for (let i = 0; i <= n; i++) ys.push(f(i / n));
    const lo = Math.min(0, ...ys), hi = Math.max(1, ...ys);
    const padX = 10, padY = 14;
    const X = (x) => padX + x * (w - 2 * padX);
    const Y = (y) => h - padY - ((y - lo) / (hi - lo)) * (h - 2 * padY);
    // grid: the start and end values, and the frame
    g.lineWidth = 1;
    g.strokeStyle = colour('--grid');
    g.setLineDash([3, 4]);
    for (const y of [0, 1]) { g.beginPath(); g.moveTo(X(0), Y(y)); g.lineTo(X(1), Y(y)); g.stroke(); }
    g.setLineDash([]);
    g.beginPath(); g.moveTo(X(0), Y(lo)); g.lineTo(X(0), Y(hi)); g.moveTo(X(1), Y(lo)); g.lineTo(X(1), Y(hi)); g.stroke();
    // the curve
    g.strokeStyle = colour('--accent');
    g.lineWidth = 2.25;
    g.lineJoin = 'round';
    g.beginPath();
    ys.forEach((y, i) => { const px = X(i / n), py = Y(y); if (i) g.lineTo(px, py); else g.moveTo(px, py); });
    g.stroke();
    if (progressDot !== undefined) {
      const x = clamp01(progressDot);
      g.fillStyle = colour('--target');
      g.beginPath(); g.arc(X(x), Y(f(x)), 4.5, 0, 2 * Math.PI); g.fill();
    }
  }

  function update() {
    curve = current();
    const c = curve;
    let text;
    if (!c.parsed) text = `“${c.text}” is not a curve paramd knows`;
    else if (c.parsed.seconds) text = `${c.text}: ${c.parsed.note}, ${c.parsed.seconds.toFixed(2)} s`;
    else if (motion.curve === null && motion.duration === null) text = 'each parameter’s default action';
    else if (motion.curve === null) text = `each parameter’s default curve, ${formatDuration(motion.duration)}`;
    else text = `${c.text}${motion.duration === null ? ', default duration' : ', ' + formatDuration(motion.duration)}`;
    caption.textContent = text;
    canvas.setAttribute('aria-label', 'plot of the curve ' + c.text);
    draw();
  }

  // A dot runs along the curve for as long as the motion just sent.
  function run(seconds) {
    const c = curve || current();
    runSeconds = c.parsed && c.parsed.seconds ? c.parsed.seconds : seconds;
    runStart = performance.now();
    if (frame || runSeconds <= 0 || document.hidden) return;
    const step = (now) => {
      const x = (now - runStart) / 1000 / runSeconds;
      if (x >= 1) { frame = 0; draw(); return; }
      draw(x);
      frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
  }

  window.addEventListener('resize', () => draw());
  return { update, run };
})();

function formatSeconds(s) {
  if (s === 0) return '0 s (jump)';
  return s < 1 ? Math.round(s * 1000) + ' ms' : s.toFixed(s < 10 ? 2 : 1) + ' s';
}

function setupMotionControls() {
  const select = $('curve');
  const custom = $('curve-custom');
  const add = (parent, value, label) => { const o = document.createElement('option'); o.value = value; o.textContent = label ?? value; parent.appendChild(o); };
  add(select, '', 'Default action');
  for (const [group, names] of Curves.menu) {
    const og = document.createElement('optgroup');
    og.label = group;
    for (const n of names) add(og, n);
    select.appendChild(og);
  }
  add(select, '*', 'Custom…');
  select.addEventListener('change', () => {
    custom.hidden = select.value !== '*';
    if (select.value === '*') { custom.focus(); motion.curve = custom.value.trim() || null; }
    else motion.curve = select.value || null;
    custom.classList.remove('invalid');
    Plot.update();
  });
  custom.addEventListener('input', () => {
    const text = custom.value.trim();
    const ok = !text || Curves.parse(text, durationSeconds(motion.duration ?? 0.25));
    custom.classList.toggle('invalid', !ok);
    motion.curve = text || null;
    Plot.update();
  });

  // Duration: 0 … 10 s on a quadratic track (fine at short times), or a musical length from the
  // menu beside it (sent as a string: paramd follows the tempo); "default" = each parameter's
  // default action's duration.
  const range = $('duration');
  const chip = $('duration-default');
  const musical = $('duration-musical');
  const toSeconds = (r) => { const s = 10 * (r / 1000) ** 2; return s < 1 ? Math.round(s * 100) / 100 : Math.round(s * 10) / 10; };
  add(musical, '', 'seconds');
  for (const d of MUSICAL_DURATIONS) add(musical, d);
  range.addEventListener('input', () => { motion.duration = toSeconds(Number(range.value)); musical.value = ''; showDurationText(); });
  musical.addEventListener('change', () => {
    motion.duration = musical.value || toSeconds(Number(range.value));
    showDurationText();
  });
  chip.addEventListener('click', () => {
    motion.duration = null;
    musical.value = '';
    range.value = String(Math.round(1000 * Math.sqrt(0.25 / 10)));
    showDurationText();
  });
  range.value = String(Math.round(1000 * Math.sqrt(0.25 / 10)));
  showDurationText();
}

// `1m (2.00 s)`: a musical duration with its length at the tempo now.
function formatDuration(d) {
  if (typeof d !== 'string') return formatSeconds(d);
  const seconds = durationSeconds(d);
  return Number.isFinite(seconds) ? `${d} (${formatSeconds(seconds)})` : d;
}

function showDurationText() {
  const out = $('duration-text');
  out.textContent = motion.duration === null ? 'default' : formatDuration(motion.duration);
  $('duration-default').setAttribute('aria-pressed', String(motion.duration === null));
  $('duration').setAttribute('aria-valuetext', out.textContent);
  $('duration').classList.toggle('inactive', typeof motion.duration === 'string');
  Plot.update();
}

// ---------------------------------------------------------------------------------------------
// Scenes (SPEC §13): a button per scene recalls it with the page's curve and duration; a field
// saves the current targets as a scene; `morph` (a parameter like any other) crossfades between
// two scenes picked here. The page learns the list by asking /scene/list (replies /scene s name
// i members …, then /scene/list/end) when it connects and after each save; the strip shows
// once the first list has come.

const SCENE_NAME = /^[a-z0-9_-]{1,32}$/;
const scenes = { names: [], members: new Map(), incoming: null, from: '', to: '' };

function askScenes() {
  scenes.incoming = scenes.incoming || [];
  send('/scene/list', []);
}

function recallScene(name) {
  const args = [{ type: 's', value: name }];
  // A scene's own default duration is not known to the page: with a curve chosen and the
  // duration on "default", the recall takes 1 s, the default scene action's duration.
  if (motion.duration !== null || motion.curve !== null) args.push(durationArg(motion.duration ?? 1));
  if (motion.curve !== null) args.push({ type: 's', value: motion.curve });
  if (send('/scene/recall', args)) Plot.run(durationSeconds(motion.duration ?? 1));
}

function saveScene() {
  const field = $('scene-name');
  const name = field.value.trim();
  if (!SCENE_NAME.test(name)) {
    field.classList.add('invalid');
    toast('error', 'scene name', 'a–z, 0–9, _ and -, 1 to 32 characters', 'scene-name');
    return;
  }
  field.classList.remove('invalid');
  if (!send('/scene/save', [{ type: 's', value: name }])) return;
  field.value = '';
  askScenes();
}

function pickMorph() {
  scenes.from = $('morph-from').value;
  scenes.to = $('morph-to').value;
  if (scenes.from && scenes.to && scenes.from !== scenes.to) {
    send('/scene/morph', [{ type: 's', value: scenes.from }, { type: 's', value: scenes.to }]);
  }
}

function releaseMorph() {
  send('/scene/release', []);
  scenes.from = scenes.to = '';
  $('morph-from').value = $('morph-to').value = '';
}

function showScenes() {
  $('scenes').hidden = false;
  const box = $('scene-buttons');
  const buttons = scenes.names.map((name) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'scene';
    b.dataset.scene = name;
    const count = scenes.members.get(name);
    b.innerHTML = '<span class="scene-name"></span><span class="scene-count"></span>';
    b.querySelector('.scene-name').textContent = name === '_previous' ? 'undo' : name;
    b.querySelector('.scene-count').textContent = String(count);
    b.title = `recall ${name} (${count} parameter${count === 1 ? '' : 's'}) with the chosen curve and duration`;
    b.addEventListener('click', () => recallScene(name));
    return b;
  });
  if (buttons.length === 0) {
    const empty = document.createElement('span');
    empty.className = 'scene-empty';
    empty.textContent = 'No scenes yet: name the current targets and save them.';
    buttons.push(empty);
  }
  box.replaceChildren(...buttons);
  for (const id of ['morph-from', 'morph-to']) {
    const select = $(id);
    const keep = id === 'morph-from' ? scenes.from : scenes.to;
    const options = [['', id === 'morph-from' ? 'from…' : 'to…'], ...scenes.names.filter((n) => n !== '_previous').map((n) => [n, n])];
    select.replaceChildren(...options.map(([value, label]) => {
      const o = document.createElement('option');
      o.value = value;
      o.textContent = label;
      return o;
    }));
    select.value = scenes.names.includes(keep) ? keep : '';
  }
}

// A reply about scenes: true when it was one.
function handleScene(m) {
  if (m.address === '/scene' && typeof m.args[0] === 'string') {
    if (!scenes.incoming) scenes.incoming = [];
    scenes.incoming.push([m.args[0], Number(m.args[1])]);
    return true;
  }
  if (m.address === '/scene/list/end') {
    const list = scenes.incoming || [];
    scenes.incoming = null;
    scenes.names = list.map(([name]) => name);
    scenes.members = new Map(list);
    showScenes();
    return true;
  }
  if (m.address === '/scene/done') {
    const finished = m.args[1] === 1 || m.args[1] === true;
    toast(finished ? 'done' : 'info', 'scene ' + String(m.args[0]), finished ? 'recalled' : 'interrupted', 'scene-done');
    return true;
  }
  return m.address.startsWith('/scene/'); // /scene/value and other answers the page does not show
}

function setupScenes() {
  $('scene-save-form').addEventListener('submit', (e) => { e.preventDefault(); saveScene(); });
  $('scene-name').addEventListener('input', () => $('scene-name').classList.remove('invalid'));
  $('morph-from').addEventListener('change', pickMorph);
  $('morph-to').addEventListener('change', pickMorph);
  $('morph-release').addEventListener('click', releaseMorph);
}

// `/tempo` in the namespace: its VALUE and beats per bar (paramd's own attribute). A server
// without one shows no tempo and is not asked.
function adoptTimelineNode(root) {
  const node = root && root.CONTENTS && root.CONTENTS.tempo;
  state.hasTempo = !!(node && node.TYPE === 'f');
  $('tempo').hidden = !state.hasTempo;
  if (!state.hasTempo) return;
  const perBar = Number(node.PARAMD_BEATS_PER_BAR);
  if (Number.isInteger(perBar) && perBar >= 1 && perBar <= 64) timeline.beatsPerBar = perBar;
  const bpm = Array.isArray(node.VALUE) ? Number(node.VALUE[0]) : NaN;
  if (Number.isFinite(bpm)) adoptTempo(bpm);
}

// ---------------------------------------------------------------------------------------------
// Modulators (SPEC §15, docs/MODULATORS.md): each parameter's panel sets one (shape, rate in Hz
// or musical time, depth, polarity) or stops it; the page learns a parameter's modulator from
// `/<param>/mod/get` (on connecting, after setting or stopping one, and with each beat anchor
// while the page is shown, every few seconds). The thumb needs nothing
// more: LISTEN streams the sounding value, wobble included. A faint band shows the wobble's reach:
// depth × the range in the parameter's domain, by polarity, around the target (where the
// animated value underneath rests), clamped to the range.

const MOD_SHAPES = ['sine', 'triangle', 'saw', 'square', 'random', 'sh'];

// ValueDomain's encode and decode (Sources/ParamCore/Curves/ValueDomain.swift), with its floors.
const DOMAIN_SPACE = {
  linear: { encode: (v) => v, decode: (x) => x },
  log: { encode: (v) => Math.log(v > 1e-9 ? v : 1e-9), decode: (x) => Math.exp(x) },
  db: { encode: (v) => (v > 1e-6 ? Math.max(20 * Math.log10(v), -120) : -120), decode: (x) => 10 ** (x / 20) },
};

// The values a modulator reaches around `centre`: [low, high], clamped to the range.
function modReach(p, mod, centre) {
  const space = DOMAIN_SPACE[p.domain] || DOMAIN_SPACE.linear;
  const span = space.encode(p.max) - space.encode(p.min);
  const [lo, hi] = { up: [0, 1], down: [-1, 0] }[mod.polarity] || [-1, 1];
  const at = space.encode(centre);
  const clamp = (v) => Math.min(p.max, Math.max(p.min, v));
  return [clamp(space.decode(at + lo * mod.depth * span)), clamp(space.decode(at + hi * mod.depth * span))];
}

function drawBand(p) {
  const centre = Number.isFinite(p.target) ? p.target : p.value;
  if (!p.mod || !Number.isFinite(centre)) { p.band.hidden = true; return; }
  const [low, high] = modReach(p, p.mod, centre);
  const u0 = clamp01(p.scale.toU(low)), u1 = clamp01(p.scale.toU(high));
  p.band.hidden = false;
  p.band.style.left = (u0 * 100).toFixed(4) + '%';
  p.band.style.width = ((u1 - u0) * 100).toFixed(4) + '%';
  p.band.dataset.low = String(low);
  p.band.dataset.high = String(high);
}

function buildModPanel(p) {
  const panel = document.createElement('details');
  panel.className = 'mod';
  panel.innerHTML = `
    <summary><span class="mod-title">modulator</span> <span class="mod-state" data-role="mod-state">off</span></summary>
    <form class="mod-form">
      <label>shape <select data-role="mod-shape"></select></label>
      <label>rate <input data-role="mod-rate" type="text" value="1" size="5" spellcheck="false" autocomplete="off"
             title="Hz (2, 0.5) or musical time (1m, 4n, 8t)"></label>
      <label>depth <input data-role="mod-depth" type="range" min="0" max="1" step="0.01" value="0.1">
             <output data-role="mod-depth-text">0.10</output></label>
      <label>polarity <select data-role="mod-polarity"><option value="bi">bi</option><option value="up">up</option><option value="down">down</option></select></label>
      <span class="mod-buttons"><button type="submit" class="chip" data-role="mod-set">Set</button>
      <button type="button" class="chip" data-role="mod-stop">Stop</button></span>
    </form>`;
  const shape = panel.querySelector('[data-role=mod-shape]');
  for (const name of MOD_SHAPES) { const o = document.createElement('option'); o.value = o.textContent = name; shape.appendChild(o); }
  const depth = panel.querySelector('[data-role=mod-depth]');
  const depthText = panel.querySelector('[data-role=mod-depth-text]');
  depth.addEventListener('input', () => { depthText.textContent = Number(depth.value).toFixed(2); });
  const rate = panel.querySelector('[data-role=mod-rate]');
  rate.addEventListener('input', () => rate.classList.remove('invalid'));
  panel.querySelector('form').addEventListener('submit', (e) => { e.preventDefault(); setModulator(p); });
  panel.querySelector('[data-role=mod-stop]').addEventListener('click', () => stopModulator(p));
  p.modPanel = panel;
  p.modState = panel.querySelector('[data-role=mod-state]');
  p.row.appendChild(panel);
}

// A rate as typed: a number of Hz, or musical time; null when it is neither.
function modRateArg(text) {
  const t = text.trim();
  if (/^(\d+\.?\d*|\.\d+)$/.test(t) && Number(t) > 0) return { type: 'f', value: Number(t) };
  if (Number.isFinite(musicalBeats(t, timeline.beatsPerBar))) return { type: 's', value: t };
  return null;
}

function setModulator(p) {
  const field = (role) => p.modPanel.querySelector(`[data-role=${role}]`);
  const rate = modRateArg(field('mod-rate').value);
  if (!rate) {
    field('mod-rate').classList.add('invalid');
    toast('error', p.name + ' modulator', 'a rate in Hz (2) or musical time (1m, 4n, 8t)', 'mod-' + p.name);
    return;
  }
  const args = [{ type: 's', value: field('mod-shape').value }, rate,
    { type: 's', value: 'depth' }, { type: 'f', value: Number(field('mod-depth').value) },
    { type: 's', value: 'polarity' }, { type: 's', value: field('mod-polarity').value }];
  if (send(p.path + '/mod', args)) send(p.path + '/mod/get', []);
}

// Stops along the page's duration (the depth falls to 0), then asks what remains.
function stopModulator(p) {
  const fade = motion.duration ?? p.duration;
  if (!send(p.path + '/mod/stop', [durationArg(fade)])) return;
  const seconds = durationSeconds(fade);
  setTimeout(() => send(p.path + '/mod/get', []), (Number.isFinite(seconds) ? seconds : 0) * 1000 + 50);
}

function refreshModulators() {
  for (const p of state.params.values()) if (p.modulatable) send(p.path + '/mod/get', []);
}

// `/<param>/mod s shape f|s rate f depth f phase s polarity`, or `/<param>/mod s none`.
function adoptModulator(p, args) {
  const [shape, rate, depth, phase, polarity] = args;
  p.mod = shape === 'none' || !MOD_SHAPES.includes(shape) ? null
    : { shape, rate, depth: Number(depth) || 0, phase: Number(phase) || 0, polarity: String(polarity || 'bi') };
  p.slider.dataset.mod = p.mod ? p.mod.shape : '';
  p.row.classList.toggle('modulated', !!p.mod);
  if (p.modState) {
    p.modState.textContent = p.mod
      ? `${p.mod.shape} ${typeof rate === 'number' ? Number(rate.toPrecision(4)) + ' Hz' : rate} · ${p.mod.depth.toFixed(2)}`
      : 'off';
  }
  if (p.mod && p.modPanel && !p.modPanel.contains(document.activeElement)) {
    const field = (role) => p.modPanel.querySelector(`[data-role=${role}]`);
    field('mod-shape').value = p.mod.shape;
    field('mod-rate').value = typeof rate === 'number' ? String(Number(rate.toPrecision(6))) : String(rate);
    field('mod-depth').value = String(p.mod.depth);
    field('mod-depth-text').textContent = p.mod.depth.toFixed(2);
    field('mod-polarity').value = p.mod.polarity;
  }
  drawBand(p);
}

// ---------------------------------------------------------------------------------------------
// Connection: namespace over HTTP, then the WebSocket; on loss, retry with backoff
// (0.5 s doubling to 5 s), then reload the namespace, LISTEN again, ask for every target.

function setConnection(kind, text) {
  const box = $('connection');
  box.dataset.state = kind;
  $('connection-text').textContent = text;
  document.body.dataset.connection = kind;
}

async function fetchJSON(path) {
  const response = await fetch(path, { cache: 'no-store' });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

function install(params) {
  const box = $('params');
  const old = state.params;
  state.params = new Map();
  const rows = [];
  let morphRow = null; // `morph` lives in the scene strip, between its two pickers
  for (const p of params) {
    const previous = old.get(p.name);
    // Keep the row (and its focus) when the parameter is the same.
    if (previous && previous.min === p.min && previous.max === p.max && previous.domain === p.domain && previous.unit === p.unit) {
      Object.assign(previous, { duration: p.duration, curve: p.curve, description: p.description });
      previous.getPending = false;
      state.params.set(p.name, previous);
      if (Number.isFinite(p.value)) showValue(previous, p.value);
      if (Number.isFinite(p.knownTarget)) showTarget(previous, p.knownTarget);
      if (p.name === 'morph') morphRow = previous.row; else rows.push(previous.row);
    } else {
      buildSlider(p);
      state.params.set(p.name, p);
      p.target = NaN;
      p.marker.hidden = true;
      if (Number.isFinite(p.value)) showValue(p, p.value);
      if (Number.isFinite(p.knownTarget)) showTarget(p, p.knownTarget);
      if (p.name === 'morph') morphRow = p.row; else rows.push(p.row);
    }
  }
  box.replaceChildren(...rows);
  $('morph-slot').replaceChildren(...(morphRow ? [morphRow] : []));
  if (rows.length === 0) {
    const empty = document.createElement('p');
    empty.className = 'empty';
    empty.textContent = 'paramd lists no parameters.';
    box.appendChild(empty);
  }
}

function scheduleReconnect(reason) {
  state.connected = false;
  if (state.retryTimer) return;
  const delay = Math.min(5000, 500 * 2 ** state.attempt) * (0.85 + Math.random() * 0.3);
  state.attempt = Math.min(state.attempt + 1, 10);
  const until = performance.now() + delay;
  const tick = () => {
    const left = Math.ceil((until - performance.now()) / 1000);
    setConnection(state.everConnected ? 'lost' : 'connecting',
      (state.everConnected ? 'reconnecting' : 'connecting') + (left > 1 ? ` in ${left} s…` : '…'));
  };
  tick();
  const countdown = setInterval(tick, 500);
  state.retryTimer = setTimeout(() => { clearInterval(countdown); state.retryTimer = 0; connect(); }, delay);
  if (reason) console.info('paramd: ' + reason);
}

async function connect() {
  if (state.ws) { try { state.ws.close(); } catch (_) { /* closed already */ } state.ws = null; }
  let params;
  try {
    const [root, host] = await Promise.all([fetchJSON('/'), fetchJSON('/?HOST_INFO').catch(() => null)]);
    params = parametersFrom(root);
    adoptTimelineNode(root);
    if (host && host.NAME) {
      state.hostName = host.NAME;
      $('name').textContent = host.NAME;
      document.title = host.NAME + ' · paramd';
    }
  } catch (err) {
    scheduleReconnect(String(err));
    return;
  }
  install(params);
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${scheme}//${location.host}/`);
  ws.binaryType = 'arraybuffer';
  state.ws = ws;
  ws.onopen = () => {
    if (state.ws !== ws) return;
    state.connected = true;
    state.attempt = 0;
    state.everConnected = true;
    setConnection('live', 'live');
    for (const p of state.params.values()) {
      ws.send(JSON.stringify({ COMMAND: 'LISTEN', DATA: p.path }));
      p.getPending = false;
      p.inFlight.length = 0;
      refreshTarget(p);
      if (p.modulatable) send(p.path + '/mod/get', []);
    }
    askScenes();
    if (state.hasTempo) followTimeline(ws);
  };
  ws.onmessage = (event) => {
    if (event.data instanceof ArrayBuffer) { receive(event.data); return; }
    // OSCQuery's namespace notices (PATH_ADDED, PATH_REMOVED, PATH_RENAMED, PATH_CHANGED): a
    // SIGHUP added or removed declared parameters.
    try {
      const notice = JSON.parse(event.data);
      if (notice && typeof notice.COMMAND === 'string' && notice.COMMAND.startsWith('PATH_')) reloadNamespace();
    } catch (_) { /* not JSON: nothing for the page */ }
  };
  ws.onclose = () => {
    if (state.ws !== ws) return;
    state.ws = null;
    scheduleReconnect('connection closed');
  };
  ws.onerror = () => { /* onclose follows */ };
}

// The namespace again, on a live connection: new parameters get sliders and are listened to.
let reloading = 0;
function reloadNamespace() {
  clearTimeout(reloading);
  reloading = setTimeout(async () => {
    const ws = state.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    let params;
    try { params = parametersFrom(await fetchJSON('/')); } catch (_) { return; }
    const known = new Set(state.params.keys());
    install(params);
    for (const p of state.params.values()) {
      if (known.has(p.name)) continue;
      ws.send(JSON.stringify({ COMMAND: 'LISTEN', DATA: p.path }));
      refreshTarget(p);
      if (p.modulatable) send(p.path + '/mod/get', []);
    }
  }, 150);
}

// A page that comes back from the background (a phone's tab) reconnects at once, and its beat
// indicator runs again from a fresh anchor.
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && state.connected && state.hasTempo) { askBeatAnchor(); runBeat(); }
  if (!document.hidden && !state.connected && state.retryTimer) {
    clearTimeout(state.retryTimer);
    state.retryTimer = 0;
    connect();
  }
});

setupMotionControls();
setupScenes();
setConnection('connecting', 'connecting…');
connect();

// For tests and the curious: the page's state, read-only.
window.paramd = {
  get connected() { return state.connected; },
  parameters: () => [...state.params.values()].map((p) => ({ name: p.name, value: p.value, target: p.target, min: p.min, max: p.max, domain: p.domain, mod: p.mod })),
  beat: () => beatAt(performance.now()),
  get tempo() { return timeline.bpm; },
  OSC,
  Curves,
};
