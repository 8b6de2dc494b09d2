// Takes (SPEC §17): record what moves the parameters a pattern names, stop, and play each take
// back (once, or looped with the loop box), or undo its last recording. The list comes from
// /take/list (replies /take s name i actions f seconds s state …, then /take/list/end), asked
// when the page connects and after each change; /take/state and /take/done keep it live. A red
// dot marks the parameters being recorded.

import { $, state, send } from './state.js';
import { toast } from './toasts.js';

const TAKE_NAME = /^[a-z0-9_-]{1,32}$/;
const takes = { rows: [], incoming: null, recording: null, pattern: null };

export function askTakes() {
  takes.incoming = takes.incoming || [];
  send('/take/list', []);
}

// Whether `name` matches the OSC pattern `pattern` (*, ?, [..], {a,b}): for the red dots.
function matches(pattern, name) {
  const source = pattern.replace(/[.+^$()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')
    .replace(/\[!/g, '[^').replace(/\{([^}]*)\}/g, (_, list) => '(' + list.split(',').join('|') + ')');
  try { return new RegExp('^' + source + '$').test('/' + name); } catch (_) { return false; }
}

function markRecording() {
  for (const p of state.params.values()) {
    p.row.classList.toggle('recording', takes.recording !== null && p.name !== 'morph' && matches(takes.pattern || '/*', p.name));
  }
  const button = $('take-record');
  button.setAttribute('aria-pressed', String(takes.recording !== null));
  button.textContent = takes.recording !== null ? '■ Stop' : '● Record';
}

function recordOrStop() {
  if (takes.recording !== null) {
    send('/take/stop', [{ type: 's', value: takes.recording }]);
    return;
  }
  const field = $('take-name');
  const name = field.value.trim();
  if (!TAKE_NAME.test(name)) {
    field.classList.add('invalid');
    toast('error', 'take name', 'a–z, 0–9, _ and -, 1 to 32 characters', 'take-name');
    return;
  }
  field.classList.remove('invalid');
  const pattern = $('take-pattern').value.trim() || '/*';
  if (!send('/take/record', [{ type: 's', value: name }, { type: 's', value: pattern }])) return;
  takes.recording = name;
  takes.pattern = pattern;
  markRecording();
  askTakes();
}

function play(name) {
  const args = [{ type: 's', value: name }];
  if ($('take-loop').checked) args.push({ type: 's', value: 'loop' }, { type: 's', value: 'inf' });
  send('/take/play', args);
}

function button(label, title, action) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'chip';
  b.textContent = label;
  b.title = title;
  b.addEventListener('click', action);
  return b;
}

function showTakes() {
  $('takes').hidden = false;
  const rows = takes.rows.map(([name, actions, seconds, stateName]) => {
    const row = document.createElement('div');
    row.className = 'take';
    row.setAttribute('role', 'listitem');
    row.dataset.take = name;
    row.dataset.state = stateName;
    row.innerHTML = '<span class="take-name"></span><span class="take-state"></span>';
    row.querySelector('.take-name').textContent = name;
    row.querySelector('.take-state').textContent = `${stateName} · ${actions} · ${seconds.toFixed(1)} s`;
    row.append(
      button(stateName === 'playing' ? '■' : '▶', stateName === 'playing' ? 'stop ' + name : 'play ' + name + ' (loop: the box)',
        () => (stateName === 'playing' ? send('/take/stop', [{ type: 's', value: name }]) : play(name))),
      button('undo', 'the take as it was before its last recording', () => { send('/take/undo', [{ type: 's', value: name }]); askTakes(); }));
    row.querySelector('button').dataset.role = 'play';
    row.querySelectorAll('button')[1].dataset.role = 'undo';
    return row;
  });
  if (rows.length === 0) {
    const empty = document.createElement('span');
    empty.className = 'scene-empty';
    empty.textContent = 'No takes yet: name one and record a gesture.';
    rows.push(empty);
  }
  $('take-list').replaceChildren(...rows);
}

// A reply about takes: true when it was one.
export function handleTake(m) {
  if (m.address === '/take' && typeof m.args[0] === 'string') {
    if (!takes.incoming) takes.incoming = [];
    takes.incoming.push([m.args[0], Number(m.args[1]), Number(m.args[2]), String(m.args[3])]);
    return true;
  }
  if (m.address === '/take/list/end') {
    takes.rows = takes.incoming || [];
    takes.incoming = null;
    const recording = takes.rows.find((row) => row[3] === 'recording');
    takes.recording = recording ? recording[0] : null;
    showTakes();
    markRecording();
    return true;
  }
  if (m.address === '/take/state') {
    if (m.args[1] === 'recording') { takes.recording = String(m.args[0]); } else if (takes.recording === m.args[0]) { takes.recording = null; }
    markRecording();
    askTakes();
    return true;
  }
  if (m.address === '/take/done') {
    const finished = m.args[1] === 1 || m.args[1] === true;
    toast(finished ? 'done' : 'info', 'take ' + String(m.args[0]), finished ? 'played' : 'stopped', 'take-done');
    askTakes();
    return true;
  }
  return m.address.startsWith('/take/'); // /take/action and other answers the page does not show
}

export function setupTakes() {
  $('take-form').addEventListener('submit', (e) => { e.preventDefault(); recordOrStop(); });
  $('take-name').addEventListener('input', () => $('take-name').classList.remove('invalid'));
}
