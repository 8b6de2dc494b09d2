// The timecode paramd chases (SPEC §18), beside the tempo when there is one. /status gives it
// (tc, tc_fps, tc_locked; asked with the beat's anchors) and paramd sends /tc to every page when
// it jumps or stops; while locked it runs on here at its rate, drawn on each animation frame.
import { $ } from './state.js';

const tc = { number: NaN, at: 0, fps: 0, locked: false };

// Frames a second as labels count them, and the frame number of a label (drop-frame: SMPTE's).
const labelsPerSecond = (fps) => (fps > 29 ? 30 : Math.round(fps));
function numberOf(label, fps) {
  const m = /^(\d\d):(\d\d):(\d\d)[:;.](\d\d)$/.exec(label);
  if (!m) return NaN;
  const [h, min, s, f] = m.slice(1).map(Number);
  const minutes = h * 60 + min;
  const n = (minutes * 60 + s) * labelsPerSecond(fps) + f;
  return fps > 29 && fps < 29.99 ? n - 2 * (minutes - Math.floor(minutes / 10)) : n;
}
function labelOf(n, fps) {
  const per = labelsPerSecond(fps);
  if (fps > 29 && fps < 29.99) {
    const tens = Math.floor(n / 17982), rest = n % 17982;
    n += 18 * tens + (rest > 1 ? 2 * Math.floor((rest - 2) / 1798) : 0);
  }
  const two = (v) => String(v).padStart(2, '0');
  const s = Math.floor(n / per);
  return `${two(Math.floor(s / 3600) % 24)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}:${two(n % per)}`;
}

// A reading: the label sounding at page time `at` (a /status reply's is the middle of its round
// trip, as the beat's anchor), its rate, whether it runs.
export function adoptTimecode(label, fps, locked, at = performance.now()) {
  const box = $('timecode');
  box.hidden = !label;
  if (!label) return;
  tc.number = numberOf(label, fps);
  tc.at = at;
  tc.fps = fps;
  tc.locked = locked;
  box.dataset.locked = locked ? '1' : '0';
  $('timecode-fps').textContent = fps > 29 && fps < 29.99 ? '29.97df' : String(fps);
  drawTimecode();
}

export function drawTimecode() {
  if (!Number.isFinite(tc.number)) return;
  const now = performance.now();
  // A label names the frame under way, on average half through it when read: the frames since
  // are counted from that middle, so they are rounded (a floor would show the frame before).
  const n = tc.locked ? tc.number + Math.floor(((now - tc.at) / 1000) * tc.fps + 0.5) : tc.number;
  const text = labelOf(Math.max(0, n), tc.fps);
  const label = $('timecode-label');
  if (label.textContent !== text) label.textContent = text;
}

// /tc s label f fps i locked, from paramd at a locate or when the timecode stops.
export function handleTimecode(m) {
  if (m.address !== '/tc') return false;
  adoptTimecode(String(m.args[0] ?? ''), Number(m.args[1]), m.args[2] === 1);
  return true;
}
