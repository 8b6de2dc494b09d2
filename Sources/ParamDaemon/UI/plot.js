// The plot of the chosen curve, with its caption; a dot runs along it for as long as the motion
// just sent.

import { Curves } from './curves.js';
import { clamp01 } from './scale.js';
import { $, state, motion } from './state.js';
import { durationSeconds } from './timeline.js';
import { formatDuration } from './motion.js';

export const Plot = (() => {
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
