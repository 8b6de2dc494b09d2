// Scenes (SPEC §13): a button per scene recalls it with the page's curve and duration; a field
// saves the current targets as a scene; `morph` (a parameter like any other) crossfades between
// two scenes picked here. The page learns the list by asking /scene/list (replies /scene s name
// i members …, then /scene/list/end) when it connects and after each save; the strip shows
// once the first list has come.

import { $, motion, send } from './state.js';
import { durationArg, durationSeconds } from './timeline.js';
import { Plot } from './plot.js';
import { toast } from './toasts.js';

const SCENE_NAME = /^[a-z0-9_-]{1,32}$/;
const scenes = { names: [], members: new Map(), incoming: null, from: '', to: '' };

export function askScenes() {
  scenes.incoming = scenes.incoming || [];
  send('/scene/list', []);
}

function recallScene(name) {
  const args = [{ type: 's', value: name }];
  // A scene's own default duration is not known to the page: with a curve chosen and the
  // duration on "default", the recall takes 1 s, the default scene action's duration.
  if (motion.duration !== null || motion.curve !== null) args.push(durationArg(motion.duration ?? 1));
  if (motion.curve !== null) args.push({ type: 's', value: motion.curve });
  if (send('/scene/recall', args)) Plot.run(durationSeconds(motion.duration ?? 1));
}

function saveScene() {
  const field = $('scene-name');
  const name = field.value.trim();
  if (!SCENE_NAME.test(name)) {
    field.classList.add('invalid');
    toast('error', 'scene name', 'a–z, 0–9, _ and -, 1 to 32 characters', 'scene-name');
    return;
  }
  field.classList.remove('invalid');
  if (!send('/scene/save', [{ type: 's', value: name }])) return;
  field.value = '';
  askScenes();
}

function pickMorph() {
  scenes.from = $('morph-from').value;
  scenes.to = $('morph-to').value;
  if (scenes.from && scenes.to && scenes.from !== scenes.to) {
    send('/scene/morph', [{ type: 's', value: scenes.from }, { type: 's', value: scenes.to }]);
  }
}

function releaseMorph() {
  send('/scene/release', []);
  scenes.from = scenes.to = '';
  $('morph-from').value = $('morph-to').value = '';
}

function showScenes() {
  $('scenes').hidden = false;
  const box = $('scene-buttons');
  const buttons = scenes.names.map((name) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'scene';
    b.dataset.scene = name;
    const count = scenes.members.get(name);
    b.innerHTML = '<span class="scene-name"></span><span class="scene-count"></span>';
    b.querySelector('.scene-name').textContent = name === '_previous' ? 'undo' : name;
    b.querySelector('.scene-count').textContent = String(count);
    b.title = `recall ${name} (${count} parameter${count === 1 ? '' : 's'}) with the chosen curve and duration`;
    b.addEventListener('click', () => recallScene(name));
    return b;
  });
  if (buttons.length === 0) {
    const empty = document.createElement('span');
    empty.className = 'scene-empty';
    empty.textContent = 'No scenes yet: name the current targets and save them.';
    buttons.push(empty);
  }
  box.replaceChildren(...buttons);
  for (const id of ['morph-from', 'morph-to']) {
    const select = $(id);
    const keep = id === 'morph-from' ? scenes.from : scenes.to;
    const options = [['', id === 'morph-from' ? 'from…' : 'to…'], ...scenes.names.filter((n) => n !== '_previous').map((n) => [n, n])];
    select.replaceChildren(...options.map(([value, label]) => {
      const o = document.createElement('option');
      o.value = value;
      o.textContent = label;
      return o;
    }));
    select.value = scenes.names.includes(keep) ? keep : '';
  }
}

// A reply about scenes: true when it was one.
export function handleScene(m) {
  if (m.address === '/scene' && typeof m.args[0] === 'string') {
    if (!scenes.incoming) scenes.incoming = [];
    scenes.incoming.push([m.args[0], Number(m.args[1])]);
    return true;
  }
  if (m.address === '/scene/list/end') {
    const list = scenes.incoming || [];
    scenes.incoming = null;
    scenes.names = list.map(([name]) => name);
    scenes.members = new Map(list);
    showScenes();
    return true;
  }
  if (m.address === '/scene/done') {
    const finished = m.args[1] === 1 || m.args[1] === true;
    toast(finished ? 'done' : 'info', 'scene ' + String(m.args[0]), finished ? 'recalled' : 'interrupted', 'scene-done');
    return true;
  }
  return m.address.startsWith('/scene/'); // /scene/value and other answers the page does not show
}

export function setupScenes() {
  $('scene-save-form').addEventListener('submit', (e) => { e.preventDefault(); saveScene(); });
  $('scene-name').addEventListener('input', () => $('scene-name').classList.remove('invalid'));
  $('morph-from').addEventListener('change', pickMorph);
  $('morph-to').addEventListener('change', pickMorph);
  $('morph-release').addEventListener('click', releaseMorph);
}
