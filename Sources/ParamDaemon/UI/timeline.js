// Musical time (SPEC §14, docs/MUSICAL-TIME.md): the notation the duration control offers, and
// the timeline the page follows to show the tempo and the beat. paramd tells the tempo (LISTEN on
// /tempo streams every change, whoever made it) and a beat anchor (/status's beat, asked when
// the page connects, when the tempo changes and every few seconds while the page is shown);
// between anchors the beat runs on here at the tempo, drawn on each animation frame.

import { adoptTimecode, drawTimecode } from './timecode.js';
import { $, state, motion, send } from './state.js';
import { showDurationText } from './motion.js';
import { refreshModulators } from './modulators.js';

export const MUSICAL_DURATIONS = ['16n', '8t', '8n', '4t', '8n.', '4n', '4n.', '2n', '1m', '2m', '4m'];

// `Nm` bars, `Nn` a 1/N note, `Nb` beats, with `t` (× 2/3) or `.` (× 1.5) after `n`: beats; NaN
// if the text is not musical time.
export function musicalBeats(text, beatsPerBar) {
  const m = /^(\d+(?:\.\d+)?)(m|n|b)(t|\.)?$/.exec(String(text));
  if (!m || (m[3] && m[2] !== 'n')) return NaN;
  const n = Number(m[1]);
  if (!(n > 0)) return NaN;
  const beats = m[2] === 'm' ? n * beatsPerBar : m[2] === 'n' ? 4 / n : n;
  return beats * (m[3] === 't' ? 2 / 3 : m[3] === '.' ? 1.5 : 1);
}

export const timeline = {
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
export function durationSeconds(d) {
  if (typeof d !== 'string') return d;
  const bpm = Number.isFinite(timeline.bpm) ? timeline.bpm : 120;
  return (musicalBeats(d, timeline.beatsPerBar) * 60) / bpm;
}

// A duration as an OSC argument: seconds as a float, musical time as a string.
export const durationArg = (d) => (typeof d === 'string' ? { type: 's', value: d } : { type: 'f', value: d });

export function beatAt(now) {
  if (!Number.isFinite(timeline.anchorBeat) || !Number.isFinite(timeline.bpm)) return NaN;
  return timeline.anchorBeat + ((now - timeline.anchorAt) / 60000) * timeline.bpm;
}

// One /status at a time and at most one every ANCHOR_GAP_MS (a gliding tempo streams many
// /tempo messages); one asked for too soon goes out when the gap has passed.
export function askBeatAnchor() {
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
export function adoptTempo(bpm) {
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
export function adoptStatus(args) {
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
  adoptTimecode(String(pairs.get('tc') ?? ''), Number(pairs.get('tc_fps')), pairs.get('tc_locked') === 1, at);
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

export function runBeat() {
  if (timeline.frame) return;
  const step = () => {
    timeline.frame = 0;
    if (document.hidden) return;
    drawBeat();
    drawTimecode();
    timeline.frame = requestAnimationFrame(step);
  };
  timeline.frame = requestAnimationFrame(step);
}

// On connecting: the tempo (and its changes), a first anchor, and a fresh one every few seconds
// while the page is shown and live.
export function followTimeline(ws) {
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

// `/tempo` in the namespace: its VALUE and beats per bar (paramd's own attribute). A server
// without one shows no tempo and is not asked.
export function adoptTimelineNode(root) {
  const node = root && root.CONTENTS && root.CONTENTS.tempo;
  state.hasTempo = !!(node && node.TYPE === 'f');
  $('tempo').hidden = !state.hasTempo;
  if (!state.hasTempo) return;
  const perBar = Number(node.PARAMD_BEATS_PER_BAR);
  if (Number.isInteger(perBar) && perBar >= 1 && perBar <= 64) timeline.beatsPerBar = perBar;
  const bpm = Array.isArray(node.VALUE) ? Number(node.VALUE[0]) : NaN;
  if (Number.isFinite(bpm)) adoptTempo(bpm);
}
