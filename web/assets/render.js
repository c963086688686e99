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

  // ---- facts about one run -----------------------------------------------

  function ledgerEffects(run) {
    const out = [];
    for (const rec of run.records || []) {
      if (rec.type === 'ledger' && Array.isArray(rec.effects)) out.push(...rec.effects);
    }
    return out;
  }

  function realEffects(run) {
    return ledgerEffects(run).filter((e) => !e.dryRun);
  }

  function isUndone(run) {
    return (run.records || []).some((r) => r.type === 'undo' && r.outcome === 'undone');
  }

  // outcomeOf is what the run's line and the outcome filter show.
  function outcomeOf(run) {
    if (run.end) return run.end.outcome || 'ended';
    const check = (run.records || []).find((r) => r.type === 'check');
    if (check) return check.outcome || 'check';
    return 'running';
  }

  // searchText is everything a search looks in: paths, messages, tool
  // calls, the model, the outcome and its reason.
  const searchCache = new WeakMap(); // run -> its search text; a reload brings new objects

  function searchText(run) {
    let text = searchCache.get(run);
    if (text === undefined) {
      text = buildSearchText(run);
      searchCache.set(run, text);
    }
    return text;
  }

  function buildSearchText(run) {
    const parts = [run.id, outcomeOf(run)];
    const st = run.start || {};
    parts.push(st.trigger, st.model, st.provider);
    for (const c of st.changed || []) parts.push(c.path);
    for (const rec of run.records || []) {
      parts.push(rec.content, rec.name, rec.result, rec.reason);
      if (rec.args !== undefined) parts.push(typeof rec.args === 'string' ? rec.args : JSON.stringify(rec.args));
    }
    for (const e of ledgerEffects(run)) parts.push(e.op, e.path, e.to);
    if (run.end) parts.push(run.end.reason);
    return parts.filter(Boolean).join('\n').toLowerCase();
  }

  // ---- one run -----------------------------------------------------------

  // renderRun draws a run as one line (time, trigger, outcome, changes,
  // passes) that opens on click to the whole run. hooks: expanded (open
  // at first), onToggle(run, article, open), onUndo(run, button).
  function renderRun(run, hooks) {
    hooks = hooks || {};
    const start = run.start || {};
    const end = run.end;
    const recs = run.records || [];
    const tokens = end ? (end.promptTokens || 0) + (end.completionTokens || 0) : 0;
    const effects = realEffects(run);
    const planned = ledgerEffects(run).length - effects.length;
    const undone = isUndone(run);
    const outcome = outcomeOf(run);
    const changes = effects.length
      ? plural(effects.length, 'change')
      : planned ? planned + ' planned' : 'no changes';
    const passes = end && end.passes ? (end.passes === 1 ? '1 pass' : end.passes + ' passes') : '';
    const line = el('button', { type: 'button', class: 'run-line', 'aria-expanded': hooks.expanded ? 'true' : 'false' },
      el('span', { class: 'chev', 'aria-hidden': 'true' }),
      el('span', { class: 'when', title: start.time || '' }, when(start.time || (recs[0] && recs[0].time)) || run.id),
      start.trigger ? el('span', { class: 'trigger' }, start.trigger) : null,
      el('span', { class: 'outcome ' + outcomeClass(end ? end.outcome : (outcome === 'running' ? '' : outcome)) }, outcome),
      undone ? el('span', { class: 'undone-badge' }, 'undone') : null,
      start.dryRun ? el('span', { class: 'tag' }, 'dry run') : null,
      el('span', { class: 'spacer' }),
      el('span', { class: 'stat changes' + (effects.length ? ' some' : '') }, changes),
      passes ? el('span', { class: 'stat passes' }, passes) : null);

    const body = [];
    body.push(el('div', { class: 'runmeta' },
      start.model || start.provider ? el('span', { class: 'model', title: 'the model this run used' },
        'model ', el('code', null, (start.provider ? start.provider + ' · ' : '') + (start.model || 'default'))) : null,
      end ? el('span', { class: 'stat', title: 'duration' }, duration(end.durationMs)) : null,
      end ? el('span', { class: 'stat', title: (end.promptTokens || 0) + ' prompt + ' + (end.completionTokens || 0) + ' completion' }, plural(tokens, 'token')) : null,
      el('code', { class: 'runid' }, run.id)));
    if (effects.length && end && !undone) {
      body.push(el('div', { class: 'run-actions' },
        el('button', { type: 'button', class: 'undo-run', onclick: (ev) => { ev.stopPropagation(); if (hooks.onUndo) hooks.onUndo(run, ev.currentTarget); } }, 'Undo this run'),
        el('div', { class: 'run-result', hidden: true })));
    }
    const changed = start.changed || [];
    if (run.start) {
      body.push(el('div', { class: 'changed' },
        el('h3', null, 'Seen changes'),
        changed.length
          ? el('ul', { class: 'paths' }, changed.map((c) => el('li', { class: c.removed ? 'removed' : '' }, el('code', null, c.path), c.removed ? ' (removed)' : '')))
          : el('p', { class: 'muted' }, 'No changed paths (' + (start.trigger || 'manual') + ' run).')));
    }
    if (ledgerEffects(run).length) {
      body.push(el('div', { class: 'changes-slot' }, el('h3', null, 'What changed'), el('p', { class: 'muted' }, 'Loading…')));
    }

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
    if (tr.firstChild) body.push(tr);
    for (const rec of recs) {
      if (rec.type === 'ledger') body.push(renderLedger(rec.effects));
    }
    for (const rec of recs) {
      if (rec.type === 'undo') {
        body.push(el('div', { class: 'undo-note ' + (rec.outcome === 'undone' ? 'ok' : 'error') },
          (rec.outcome === 'undone' ? 'Undone: ' : 'Undo refused: ') + (rec.reason || ''),
          ' ', el('span', { class: 'muted' }, when(rec.time))));
      }
      if (rec.type === 'check') {
        body.push(el('div', { class: 'check-note' }, 'Check: ' + (rec.outcome || '') + (rec.reason ? ' — ' + rec.reason : ''),
          rec.result ? el('pre', null, rec.result) : null));
      }
    }
    if (end && end.reason) body.push(el('footer', null, end.reason));
    const bodyEl = el('div', { class: 'run-body', hidden: !hooks.expanded }, body);
    const art = el('article', { class: 'run' + (undone ? ' is-undone' : '') + (hooks.expanded ? ' open' : ''), 'data-run': run.id, 'data-outcome': outcome }, line, bodyEl);
    line.addEventListener('click', () => {
      const open = bodyEl.hidden;
      bodyEl.hidden = !open;
      art.classList.toggle('open', open);
      line.setAttribute('aria-expanded', open ? 'true' : 'false');
      if (hooks.onToggle) hooks.onToggle(run, art, open);
    });
    return art;
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


  return { el, clear, badge, when, ago, duration, plural, renderRun, outcomeOf, isUndone, searchText, realEffects };
})();
