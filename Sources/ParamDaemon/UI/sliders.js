// Sliders: one per parameter, whose thumb shows the sounding value and whose marker shows the
// target; a press, a drag or a key sends a target with the chosen motion.

import { clamp01, tidy, formatValue, formatDb } from './scale.js';
import { state, motion, send } from './state.js';
import { durationArg, durationSeconds } from './timeline.js';
import { Plot } from './plot.js';
import { buildModPanel, drawBand } from './modulators.js';

export function buildSlider(p) {
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

export function showValue(p, v) {
  p.value = v;
  const u = clamp01(p.scale.toU(v));
  p.thumb.style.left = (u * 100).toFixed(4) + '%';
  p.fill.style.width = (u * 100).toFixed(4) + '%';
  p.slider.dataset.value = String(v);
  p.valueText.textContent = formatValue(p, v);
  p.subText.textContent = p.name === 'volume' || p.domain === 'db' ? formatDb(v) : '';
  p.row.classList.toggle('moving', Number.isFinite(p.target) && Math.abs(p.scale.toU(p.target) - u) > 0.002);
}

export function showTarget(p, t) {
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

export function refreshTarget(p) {
  if (p.getPending) return;
  p.getPending = true;
  send(p.path + '/get', []);
}

// paramd's target, streamed over LISTEN whenever it changes (whoever changed it) and in answer
// to /get. Targets this page sent come back in the order sent: while a later one is still on its
// way, an earlier one's echo must not pull the marker back. A target this page did not send
// (another controller, MIDI, a stop) moves the marker at once.
export function adoptTarget(p, t) {
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
