// Toasts: a few at a time, each for about three seconds; one per key (a parameter's /done).

import { $ } from './state.js';

export function toast(kind, title, text, key) {
  const box = $('toasts');
  let el = key ? box.querySelector(`[data-key="${CSS.escape(key)}"]`) : null;
  if (!el) {
    el = document.createElement('div');
    el.className = 'toast';
    if (key) el.dataset.key = key;
    el.innerHTML = '<span class="toast-icon" aria-hidden="true"></span><strong></strong> <span class="toast-text"></span>';
    box.appendChild(el);
    while (box.children.length > 4) box.firstElementChild.remove();
  }
  el.dataset.kind = kind;
  el.querySelector('strong').textContent = title;
  el.querySelector('.toast-text').textContent = text;
  el.classList.remove('leaving');
  clearTimeout(el._timer);
  el._timer = setTimeout(() => {
    el.classList.add('leaving');
    el._timer = setTimeout(() => el.remove(), 400);
  }, kind === 'error' || kind === 'warning' ? 5000 : 2500);
}
