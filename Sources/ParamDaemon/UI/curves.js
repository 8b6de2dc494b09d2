// Timing curves (SPEC §4.2), evaluated here only to draw them: cubic Béziers, Penner's
// easings (easings.net), CSS steps, springs (the closed form of docs/CURVES.md), curvature.

export const Curves = (() => {
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
