// paramd's control page (SPEC §9): one slider per parameter, whose thumb shows the sounding value
// (streamed over the WebSocket with LISTEN) and whose marker shows the target. Plain JavaScript
// modules, no dependencies: everything here is served from the paramd binary. This one starts
// the page; docs/CONTROL-PAGE.md says which module holds what.

import { OSC } from './osc.js';
import { Curves } from './curves.js';
import { state } from './state.js';
import { timeline, beatAt } from './timeline.js';
import { setupMotionControls } from './motion.js';
import { setupScenes } from './scenes.js';
import { setupTakes } from './takes.js';
import { setConnection, connect } from './connection.js';

setupMotionControls();
setupScenes();
setupTakes();
setConnection('connecting', 'connecting…');
connect();

// For tests and the curious: the page's state, read-only.
window.paramd = {
  get connected() { return state.connected; },
  parameters: () => [...state.params.values()].map((p) => ({ name: p.name, value: p.value, target: p.target, min: p.min, max: p.max, domain: p.domain, mod: p.mod })),
  beat: () => beatAt(performance.now()),
  get tempo() { return timeline.bpm; },
  OSC,
  Curves,
};
