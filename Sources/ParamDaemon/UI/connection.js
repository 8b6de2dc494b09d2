// Connection: namespace over HTTP, then the WebSocket; on loss, retry with backoff
// (0.5 s doubling to 5 s), then reload the namespace, LISTEN again, ask for every target.

import { $, state, send } from './state.js';
import { parametersFrom, install } from './namespace.js';
import { adoptTimelineNode, followTimeline, askBeatAnchor, runBeat } from './timeline.js';
import { receive } from './messages.js';
import { refreshTarget } from './sliders.js';
import { askScenes } from './scenes.js';
import { askTakes } from './takes.js';

export function setConnection(kind, text) {
  const box = $('connection');
  box.dataset.state = kind;
  $('connection-text').textContent = text;
  document.body.dataset.connection = kind;
}

async function fetchJSON(path) {
  const response = await fetch(path, { cache: 'no-store' });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

function scheduleReconnect(reason) {
  state.connected = false;
  if (state.retryTimer) return;
  const delay = Math.min(5000, 500 * 2 ** state.attempt) * (0.85 + Math.random() * 0.3);
  state.attempt = Math.min(state.attempt + 1, 10);
  const until = performance.now() + delay;
  const tick = () => {
    const left = Math.ceil((until - performance.now()) / 1000);
    setConnection(state.everConnected ? 'lost' : 'connecting',
      (state.everConnected ? 'reconnecting' : 'connecting') + (left > 1 ? ` in ${left} s…` : '…'));
  };
  tick();
  const countdown = setInterval(tick, 500);
  state.retryTimer = setTimeout(() => { clearInterval(countdown); state.retryTimer = 0; connect(); }, delay);
  if (reason) console.info('paramd: ' + reason);
}

export async function connect() {
  if (state.ws) { try { state.ws.close(); } catch (_) { /* closed already */ } state.ws = null; }
  let params;
  try {
    const [root, host] = await Promise.all([fetchJSON('/'), fetchJSON('/?HOST_INFO').catch(() => null)]);
    params = parametersFrom(root);
    adoptTimelineNode(root);
    if (host && host.NAME) {
      state.hostName = host.NAME;
      $('name').textContent = host.NAME;
      document.title = host.NAME + ' · paramd';
    }
  } catch (err) {
    scheduleReconnect(String(err));
    return;
  }
  install(params);
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${scheme}//${location.host}/`);
  ws.binaryType = 'arraybuffer';
  state.ws = ws;
  ws.onopen = () => {
    if (state.ws !== ws) return;
    state.connected = true;
    state.attempt = 0;
    state.everConnected = true;
    setConnection('live', 'live');
    for (const p of state.params.values()) {
      ws.send(JSON.stringify({ COMMAND: 'LISTEN', DATA: p.path }));
      p.getPending = false;
      p.inFlight.length = 0;
      refreshTarget(p);
      if (p.modulatable) send(p.path + '/mod/get', []);
    }
    askScenes();
    askTakes();
    if (state.hasTempo) followTimeline(ws);
  };
  ws.onmessage = (event) => {
    if (event.data instanceof ArrayBuffer) { receive(event.data); return; }
    // OSCQuery's namespace notices (PATH_ADDED, PATH_REMOVED, PATH_RENAMED, PATH_CHANGED): a
    // SIGHUP added or removed declared parameters.
    try {
      const notice = JSON.parse(event.data);
      if (notice && typeof notice.COMMAND === 'string' && notice.COMMAND.startsWith('PATH_')) reloadNamespace();
    } catch (_) { /* not JSON: nothing for the page */ }
  };
  ws.onclose = () => {
    if (state.ws !== ws) return;
    state.ws = null;
    scheduleReconnect('connection closed');
  };
  ws.onerror = () => { /* onclose follows */ };
}

// The namespace again, on a live connection: new parameters get sliders and are listened to.
let reloading = 0;
function reloadNamespace() {
  clearTimeout(reloading);
  reloading = setTimeout(async () => {
    const ws = state.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    let params;
    try { params = parametersFrom(await fetchJSON('/')); } catch (_) { return; }
    const known = new Set(state.params.keys());
    install(params);
    for (const p of state.params.values()) {
      if (known.has(p.name)) continue;
      ws.send(JSON.stringify({ COMMAND: 'LISTEN', DATA: p.path }));
      refreshTarget(p);
      if (p.modulatable) send(p.path + '/mod/get', []);
    }
  }, 150);
}

// A page that comes back from the background (a phone's tab) reconnects at once, and its beat
// indicator runs again from a fresh anchor.
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && state.connected && state.hasTempo) { askBeatAnchor(); runBeat(); }
  if (!document.hidden && !state.connected && state.retryTimer) {
    clearTimeout(state.retryTimer);
    state.retryTimer = 0;
    connect();
  }
});
