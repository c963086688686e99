// tend history viewer: building the page from data, and one run of a
// watcher's chat session. Every value reaches the page as a text node or an
// attribute value, never as HTML.
'use strict';

window.tendRender = (function () {
  // ---- DOM helpers -------------------------------------------------------

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of kids.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  // ---- formatting --------------------------------------------------------

  function badge(text) {
    return el('span', { class: 'badge b-' + String(text || 'unknown').toLowerCase() }, text || '?');
  }

  function when(iso) {
    if (!iso || iso.startsWith('0001-')) return '';
    const d = new Date(iso);
    if (isNaN(d)) return '';
    return d.toLocaleString(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  }

  function ago(iso) {
    if (!iso || iso.startsWith('0001-')) return '';
    const s = (Date.now() - new Date(iso).getTime()) / 1000;
    if (!(s >= 0)) return when(iso);
    if (s < 60) return 'just now';
    if (s < 3600) return Math.floor(s / 60) + ' min ago';
    if (s < 86400) return Math.floor(s / 3600) + ' h ago';
    return when(iso);
  }

  function duration(ms) {
    if (ms === undefined || ms === null) return '';
    if (ms < 1000) return ms + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
    return Math.floor(ms / 60000) + ' min ' + Math.round((ms % 60000) / 1000) + ' s';
  }

  function plural(n, word) {
    return n + ' ' + word + (n === 1 ? '' : 's');
  }

  function pretty(raw) {
    if (raw === undefined || raw === null) return '';
    try { return JSON.stringify(raw, null, 2); } catch (_) { return String(raw); }
  }

  // compactArgs shows a tool call's arguments on one line: key="value" …
  function compactArgs(args) {
    if (args === undefined || args === null) return '';
    if (typeof args !== 'object') return String(args).slice(0, 160);
    const parts = [];
    for (const [k, v] of Object.entries(args)) {
      let s = typeof v === 'string' ? JSON.stringify(v.length > 60 ? v.slice(0, 57) + '…' : v) : JSON.stringify(v);
      parts.push(k + '=' + s);
    }
    const line = parts.join('  ');
    return line.length > 160 ? line.slice(0, 157) + '…' : line;
  }

  // ---- one run -----------------------------------------------------------

  function outcomeClass(o) {
    if (o === 'done') return 'o-ok';
    if (o === 'failed' || o === 'timeout') return 'o-bad';
    if (!o) return 'o-running';
    return 'o-warn';
  }

  function renderRun(run) {
    const start = run.start || {};
    const end = run.end;
    const recs = run.records || [];
    const tokens = end ? (end.promptTokens || 0) + (end.completionTokens || 0) : 0;
    const head = el('header', null,
      el('span', { class: 'when', title: start.time || '' }, when(start.time) || run.id),
      start.trigger ? el('span', { class: 'trigger' }, start.trigger) : null,
      el('span', { class: 'outcome ' + outcomeClass(end && end.outcome) }, end ? (end.outcome || 'ended') : 'running'),
      start.dryRun ? el('span', { class: 'tag' }, 'dry run') : null,
      el('span', { class: 'spacer' }),
      end ? el('span', { class: 'stat', title: 'duration' }, duration(end.durationMs)) : null,
      end ? el('span', { class: 'stat', title: (end.promptTokens || 0) + ' prompt + ' + (end.completionTokens || 0) + ' completion' }, plural(tokens, 'token')) : null,
      end && end.passes ? el('span', { class: 'stat' }, end.passes === 1 ? '1 pass' : end.passes + ' passes') : null);

    const body = [];
    const changed = start.changed || [];
    body.push(el('div', { class: 'changed' },
      el('h3', null, 'Changed'),
      changed.length
        ? el('ul', { class: 'paths' }, changed.map((c) => el('li', { class: c.removed ? 'removed' : '' }, el('code', null, c.path), c.removed ? ' (removed)' : '')))
        : el('p', { class: 'muted' }, 'No changed paths (' + (start.trigger || 'manual') + ' run).')));

    const tr = el('div', { class: 'transcript' });
    let pass = 1;
    for (const rec of recs) {
      if (rec.pass && rec.pass !== pass && (rec.type === 'message' || rec.type === 'tool')) {
        pass = rec.pass;
        tr.append(el('div', { class: 'pass' }, 'pass ' + pass));
      }
      const node = renderRecord(rec);
      if (node) tr.append(node);
    }
    body.push(tr);
    for (const rec of recs) {
      if (rec.type === 'ledger') body.push(renderLedger(rec.effects));
    }
    for (const rec of recs) {
      if (rec.type === 'undo') {
        body.push(el('div', { class: 'undo-note ' + (rec.outcome === 'undone' ? 'ok' : 'error') },
          (rec.outcome === 'undone' ? 'Undone: ' : 'Undo refused: ') + (rec.reason || ''),
          ' ', el('span', { class: 'muted' }, when(rec.time))));
      }
    }
    if (end && end.reason) body.push(el('footer', null, end.reason));
    return el('article', { class: 'run', 'data-run': run.id }, head, body);
  }

  function renderRecord(rec) {
    switch (rec.type) {
      case 'message':
        if (rec.role === 'user') {
          return el('details', { class: 'msg prompt' }, el('summary', null, 'Prompt'), el('pre', null, rec.content || ''));
        }
        return el('div', { class: 'msg ' + (rec.role === 'assistant' ? 'assistant' : 'system') },
          el('div', { class: 'role' }, rec.role === 'assistant' ? 'model' : (rec.role || 'note')),
          el('div', { class: 'text' }, rec.content || ''));
      case 'tool':
        return el('details', { class: 'tool' + (rec.error ? ' failed' : '') },
          el('summary', null,
            el('span', { class: 'tname' }, rec.name || 'tool'),
            el('span', { class: 'targs' }, compactArgs(rec.args)),
            rec.error ? el('span', { class: 'terr' }, 'error') : null,
            rec.durationMs ? el('span', { class: 'tdur' }, duration(rec.durationMs)) : null),
          el('div', { class: 'tbody' },
            el('div', { class: 'label' }, 'Arguments'),
            el('pre', { class: 'args' }, pretty(rec.args)),
            el('div', { class: 'label' }, 'Result'),
            el('pre', { class: 'tresult' }, rec.result || '')));
      default:
        return null;
    }
  }

  function renderLedger(effects) {
    const list = Array.isArray(effects) ? effects : [];
    return el('div', { class: 'ledger' },
      el('h3', null, 'Ledger'),
      el('table', null,
        el('thead', null, el('tr', null, el('th', null, 'op'), el('th', null, 'path'), el('th', null, 'to'))),
        el('tbody', null, list.map((e) => el('tr', { class: e.dryRun ? 'dry' : '' },
          el('td', { class: 'op' }, e.op || ''),
          el('td', null, el('code', null, e.path || '')),
          el('td', null, e.to ? el('code', null, e.to) : ''))))));
  }


  return { el, clear, badge, when, ago, duration, plural, renderRun };
})();
