// Namespace: the parameters from OSCQuery's `GET /`, built-ins first, and their rows on the page.

import { makeScale } from './scale.js';
import { $, state } from './state.js';
import { buildSlider, showValue, showTarget } from './sliders.js';

const BUILT_IN_ORDER = ['volume', 'tone', 'frequency', 'pan', 'input'];

export function parametersFrom(root) {
  const found = [];
  const visit = (node) => {
    if (!node || typeof node !== 'object') return;
    const path = node.FULL_PATH;
    if (typeof path === 'string' && 'PARAMD_DOMAIN' in node) found.push(node);
    for (const child of Object.values(node.CONTENTS || {})) visit(child);
  };
  visit(root);
  if (found.length === 0) {
    // A server without paramd's own attributes: the top-level float nodes with a range.
    for (const child of Object.values(root.CONTENTS || {})) {
      if (child.TYPE === 'f' && Array.isArray(child.RANGE) && child.CONTENTS && child.CONTENTS.keyframes) found.push(child);
    }
  }
  const params = found.map((node) => {
    const range = (node.RANGE && node.RANGE[0]) || {};
    const name = node.FULL_PATH.replace(/^\//, '');
    const p = {
      name,
      path: node.FULL_PATH,
      min: Number(range.MIN ?? 0),
      max: Number(range.MAX ?? 1),
      unit: (Array.isArray(node.UNIT) ? node.UNIT[0] : node.UNIT) || '',
      description: node.DESCRIPTION || '',
      domain: node.PARAMD_DOMAIN || 'linear',
      duration: Number(node.PARAMD_DURATION ?? 0.25),
      curve: node.PARAMD_CURVE || 'default',
      value: Array.isArray(node.VALUE) ? Number(node.VALUE[0]) : NaN,
      knownTarget: node.PARAMD_TARGET === undefined ? NaN : Number(node.PARAMD_TARGET),
      modulatable: !!(node.CONTENTS && node.CONTENTS.mod && node.CONTENTS.mod.CONTENTS && node.CONTENTS.mod.CONTENTS.get),
    };
    p.scale = makeScale(p);
    return p;
  });
  const rank = (p) => { const i = BUILT_IN_ORDER.indexOf(p.name); return i < 0 ? BUILT_IN_ORDER.length : i; };
  return params
    .map((p, i) => [p, i])
    .sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1])
    .map(([p]) => p);
}

export function install(params) {
  const box = $('params');
  const old = state.params;
  state.params = new Map();
  const rows = [];
  let morphRow = null; // `morph` lives in the scene strip, between its two pickers
  for (const p of params) {
    const previous = old.get(p.name);
    // Keep the row (and its focus) when the parameter is the same.
    if (previous && previous.min === p.min && previous.max === p.max && previous.domain === p.domain && previous.unit === p.unit) {
      Object.assign(previous, { duration: p.duration, curve: p.curve, description: p.description });
      previous.getPending = false;
      state.params.set(p.name, previous);
      if (Number.isFinite(p.value)) showValue(previous, p.value);
      if (Number.isFinite(p.knownTarget)) showTarget(previous, p.knownTarget);
      if (p.name === 'morph') morphRow = previous.row; else rows.push(previous.row);
    } else {
      buildSlider(p);
      state.params.set(p.name, p);
      p.target = NaN;
      p.marker.hidden = true;
      if (Number.isFinite(p.value)) showValue(p, p.value);
      if (Number.isFinite(p.knownTarget)) showTarget(p, p.knownTarget);
      if (p.name === 'morph') morphRow = p.row; else rows.push(p.row);
    }
  }
  box.replaceChildren(...rows);
  $('morph-slot').replaceChildren(...(morphRow ? [morphRow] : []));
  if (rows.length === 0) {
    const empty = document.createElement('p');
    empty.className = 'empty';
    empty.textContent = 'paramd lists no parameters.';
    box.appendChild(empty);
  }
}
