// How a new target moves: the curve picker and the duration (seconds, musical time or each
// parameter's default), and how a duration reads.

import { Curves } from './curves.js';
import { $, motion } from './state.js';
import { MUSICAL_DURATIONS, durationSeconds } from './timeline.js';
import { Plot } from './plot.js';

function formatSeconds(s) {
  if (s === 0) return '0 s (jump)';
  return s < 1 ? Math.round(s * 1000) + ' ms' : s.toFixed(s < 10 ? 2 : 1) + ' s';
}

export function setupMotionControls() {
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
export function formatDuration(d) {
  if (typeof d !== 'string') return formatSeconds(d);
  const seconds = durationSeconds(d);
  return Number.isFinite(seconds) ? `${d} (${formatSeconds(seconds)})` : d;
}

export function showDurationText() {
  const out = $('duration-text');
  out.textContent = motion.duration === null ? 'default' : formatDuration(motion.duration);
  $('duration-default').setAttribute('aria-pressed', String(motion.duration === null));
  $('duration').setAttribute('aria-valuetext', out.textContent);
  $('duration').classList.toggle('inactive', typeof motion.duration === 'string');
  Plot.update();
}
