// Modulators (SPEC §15, docs/MODULATORS.md): each parameter's panel sets one (shape, rate in Hz
// or musical time, depth, polarity) or stops it; the page learns a parameter's modulator from
// `/<param>/mod/get` (on connecting, after setting or stopping one, and with each beat anchor
// while the page is shown, every few seconds). The thumb needs nothing
// more: LISTEN streams the sounding value, wobble included. A faint band shows the wobble's reach:
// depth × the range in the parameter's domain, by polarity, around the target (where the
// animated value underneath rests), clamped to the range.

import { clamp01 } from './scale.js';
import { state, motion, send } from './state.js';
import { musicalBeats, timeline, durationArg, durationSeconds } from './timeline.js';
import { toast } from './toasts.js';

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

export function drawBand(p) {
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

export function buildModPanel(p) {
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

export function refreshModulators() {
  for (const p of state.params.values()) if (p.modulatable) send(p.path + '/mod/get', []);
}

// `/<param>/mod s shape f|s rate f depth f phase s polarity`, or `/<param>/mod s none`.
export function adoptModulator(p, args) {
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
