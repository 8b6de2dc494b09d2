// What paramd sends: values, targets, modulators, the tempo and /status, /done, /warning, /error
// (the replies about scenes are scenes.js's, about takes takes.js's).

import { OSC } from './osc.js';
import { formatValue } from './scale.js';
import { state } from './state.js';
import { adoptTempo, adoptStatus } from './timeline.js';
import { handleTimecode } from './timecode.js';
import { showValue, showTarget, adoptTarget, refreshTarget } from './sliders.js';
import { adoptModulator } from './modulators.js';
import { handleScene } from './scenes.js';
import { handleTake } from './takes.js';
import { toast } from './toasts.js';

export function receive(data) {
  let messages;
  try { messages = OSC.decode(data); } catch (err) { console.warn('paramd: undecodable packet', err); return; }
  for (const m of messages) handle(m);
}

function handle(m) {
  if (handleScene(m) || handleTake(m) || handleTimecode(m)) return;
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
