// A parameter's domain: position on the track (0…1) ↔ value; the tidy target a press asks for;
// values as the page writes them.

const DB_FLOOR = -60; // a db-domain track whose minimum is 0 spans −60 dB … max; its left end is silence

export function makeScale(p) {
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

export const clamp01 = (u) => Math.min(1, Math.max(0, u));

// A target from a track position: rounded to the smallest step of 1, 2 or 5 × 10^k that is at
// least what one pixel of the track spans there, so a press lands on tidy values (a press at
// 20 % of a 0…1 track asks for 0.2, not 0.19945) and a drag still moves by about a pixel.
export function tidy(p, u, pixels) {
  const v = p.scale.toV(clamp01(u));
  if (u <= 0) return p.min;
  if (u >= 1) return p.max;
  const dv = Math.abs(p.scale.toV(clamp01(u + 1 / Math.max(pixels, 50))) - v) || (p.max - p.min) / 1000;
  const k = 10 ** Math.floor(Math.log10(dv));
  const step = [1, 2, 5, 10].map((m) => m * k).find((s) => s >= dv * (1 - 1e-9)) || 10 * k;
  const r = Math.round(v / step) * step;
  return Math.min(p.max, Math.max(p.min, Number(r.toPrecision(12))));
}

export function formatValue(p, v) {
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

export function formatDb(v) {
  if (!(v > 0)) return '−∞ dB';
  const db = 20 * Math.log10(v);
  return (db < 0 ? '−' : '') + Math.abs(db).toFixed(1) + ' dB';
}
