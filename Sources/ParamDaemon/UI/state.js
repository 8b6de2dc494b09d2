// The page's shared state: the connection, the parameters, the motion chosen for new targets,
// and the one way out to paramd (send).

import { OSC } from './osc.js';

export const $ = (id) => document.getElementById(id);

export const state = {
  params: new Map(), // name → parameter (with its DOM)
  ws: null,
  connected: false,
  attempt: 0,
  retryTimer: 0,
  hostName: 'paramd',
  everConnected: false,
  hasTempo: false, // the namespace has /tempo (SPEC §14)
};

// The motion chosen for new targets: curve null = each parameter's default action; duration
// null = the default's, a number = seconds, a string = musical time (`1m`, `8t`: SPEC §14).
export const motion = { curve: null, duration: null };

export function send(address, args) {
  if (!state.ws || state.ws.readyState !== WebSocket.OPEN) return false;
  state.ws.send(OSC.encode(address, args));
  return true;
}
