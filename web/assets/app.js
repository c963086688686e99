// tend history viewer. Plain JavaScript, no build step.
//
// Every piece of data (watcher names, folders, file names, model text,
// tool arguments) is untrusted: it only ever reaches the page as text
// nodes or attribute values, never as HTML.
'use strict';

(function () {
  const app = document.getElementById('app');
  const notice = document.getElementById('notice');
  const live = document.getElementById('live');

  const views = new Map(); // watcher id -> api.View
  const latest = new Map(); // watcher id -> last api.Event
  let listLoaded = false;
  let page = { kind: 'none' };
  const { el, clear, badge, when, ago, plural, renderRun, outcomeOf, isUndone, searchText } = window.tendRender;
  const { renderChanges } = window.tendDiff;
  const PAGE = 20; // runs on one page of a watcher's history

  // The page was opened with ?token=…; the daemon has set its cookie, so
  // the token leaves the address bar (and the browser history).
  if (location.search.indexOf('token=') >= 0) {
    history.replaceState(null, '', location.pathname + location.hash);
  }

  function showNotice(text, kind) {
    notice.textContent = text;
    notice.className = 'notice ' + (kind || 'error');
    notice.hidden = !text;
  }

  // ---- API ---------------------------------------------------------------

  async function api(method, path, body) {
    const opts = { method: method, credentials: 'same-origin', headers: {} };
    if (method !== 'GET') {
      opts.headers['X-Tend'] = '1';
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body || {});
    }
    const r = await fetch(path, opts);
    const text = await r.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (_) { data = null; }
    if (r.status === 401) {
      showNotice('This page has no valid token. Run `tend open` to get a link that works.');
    }
    if (!r.ok) {
      const err = new Error((data && data.error) || text.trim() || (r.status + ' ' + r.statusText));
      err.data = data;
      err.status = r.status;
      throw err;
    }
    return data;
  }

  const enc = encodeURIComponent;

  async function loadViews() {
    const list = await api('GET', '/v1/watchers');
    views.clear();
    for (const v of list || []) views.set(v.definition.id, v);
    listLoaded = true;
  }

  // ---- formatting --------------------------------------------------------

  function badgeOf(v) {
    const ev = latest.get(v.definition.id);
    return {
      badge: ev ? ev.badge : v.badge,
      phase: ev ? ev.status : v.state.phase,
      reason: ev ? (ev.reason || '') : (v.state.reason || ''),
      fires: ev ? ev.fireCount : v.state.fireCount,
      pending: ev ? (ev.pendingCount || 0) : (v.state.pendingCount || 0),
    };
  }

  // ---- list page ---------------------------------------------------------

  function watcherRow(v) {
    const d = v.definition;
    const b = badgeOf(v);
    const st = v.state || {};
    const last = st.lastRunEnd && !st.lastRunEnd.startsWith('0001-')
      ? ['last run ', el('span', { title: when(st.lastRunEnd) }, ago(st.lastRunEnd)), st.lastOutcome ? ' · ' + st.lastOutcome : '']
      : 'no run yet';
    return el('li', { class: 'watcher', 'data-id': d.id, 'data-name': d.name },
      el('div', { class: 'row1' },
        el('a', { class: 'wname', href: '#/w/' + enc(d.name) }, d.name),
        el('span', { class: 'badge-slot' }, badge(b.badge))),
      el('div', { class: 'folder' }, d.path || 'template (not attached to a folder)'),
      d.instructions ? el('div', { class: 'instr', title: d.instructions }, d.instructions) : null,
      el('div', { class: 'meta' },
        el('span', { class: 'fires' }, plural(b.fires || 0, 'fire')),
        el('span', { class: 'sep' }, '·'),
        el('span', { class: 'pending', title: 'changes seen but not yet handled by a finished run' }, b.pending + ' pending'),
        el('span', { class: 'sep' }, '·'),
        el('span', null, last)),
      el('div', { class: 'reason', hidden: !b.reason }, b.reason));
  }

  async function showList() {
    page = { kind: 'list' };
    document.title = 'tend · watchers';
    try {
      await loadViews();
    } catch (e) {
      renderError('Could not read the watchers: ' + e.message);
      return;
    }
    if (page.kind !== 'list') return;
    renderList();
  }

  function renderList() {
    clear(app);
    const list = Array.from(views.values());
    app.append(el('h1', null, 'Watchers ', el('span', { class: 'count' }, String(list.length))));
    if (list.length === 0) {
      app.append(el('p', { class: 'muted' }, 'No watchers yet. Add one with `tend add PATH --name NAME --instructions TEXT`.'));
      return;
    }
    app.append(el('ul', { class: 'watchers', id: 'watchers' }, list.map(watcherRow)));
  }

  function updateRow(v) {
    const row = app.querySelector('li.watcher[data-id="' + CSS.escape(v.definition.id) + '"]');
    if (row) row.replaceWith(watcherRow(v));
  }

  // ---- watcher page ------------------------------------------------------

  async function showWatcher(name) {
    page = { kind: 'watcher', name: name, id: null, runs: [], query: '', filter: '', offset: 0,
      expanded: new Set(), changes: new Map() };
    document.title = 'tend · ' + name;
    let v, runs;
    try {
      [v, runs] = await Promise.all([
        api('GET', '/v1/watchers/' + enc(name)),
        api('GET', '/v1/watchers/' + enc(name) + '/history'),
      ]);
    } catch (e) {
      renderError('Could not read watcher ' + name + ': ' + e.message);
      return;
    }
    if (page.kind !== 'watcher' || page.name !== name) return;
    views.set(v.definition.id, v);
    page.id = v.definition.id;
    renderWatcher(v, runs || []);
  }

  function renderWatcher(v, runs) {
    const d = v.definition;
    const b = badgeOf(v);
    page.runs = runs;
    clear(app);
    app.append(
      el('a', { class: 'back', href: '#/' }, '← All watchers'),
      el('div', { class: 'whead' },
        el('h1', null, d.name),
        el('span', { class: 'badge-slot', id: 'badge' }, badge(b.badge))),
      el('div', { class: 'folder' }, d.path || 'template (not attached to a folder)'),
      el('div', { class: 'meta' },
        el('span', { class: 'fires', id: 'fires' }, plural(b.fires || 0, 'fire')),
        el('span', { class: 'sep' }, '·'),
        el('span', { class: 'pending', id: 'pending', title: 'changes seen but not yet handled by a finished run' }, b.pending + ' pending'),
        el('span', { class: 'sep' }, '·'),
        el('span', null, (d.provider.kind || 'ollama') + ' · ' + (d.provider.model || 'default model')),
        d.dryRun ? [el('span', { class: 'sep' }, '·'), el('span', { class: 'tag' }, 'dry run')] : null),
      el('div', { class: 'reason', id: 'reason', hidden: !b.reason }, b.reason),
      pendingList(v),
      el('details', { class: 'instructions' },
        el('summary', null, 'Instructions'),
        el('pre', null, d.instructions || (d.skill ? 'skill: ' + d.skill : ''))),
      el('div', { class: 'actions' },
        el('button', { type: 'button', id: 'run-now', onclick: runNow }, 'Run now'),
        el('button', { type: 'button', id: 'toggle', onclick: toggle }, toggleLabel(b.badge)),
        el('button', { type: 'button', id: 'undo', onclick: undo }, 'Undo last run')),
      el('div', { class: 'result', id: 'result', hidden: true }),
      el('h2', null, 'Runs ', el('span', { class: 'count', id: 'run-count' }, String(runs.length))),
      el('div', { class: 'run-tools' },
        el('input', { type: 'search', id: 'run-search', placeholder: 'Search files, messages, tools…', 'aria-label': 'Search runs',
          value: page.query, oninput: (e) => { page.query = e.target.value; page.offset = 0; renderRuns(); } }),
        el('select', { id: 'run-filter', 'aria-label': 'Filter by outcome',
          onchange: (e) => { page.filter = e.target.value; page.offset = 0; renderRuns(); } })),
      el('div', { id: 'runs' }),
      el('nav', { class: 'pager', id: 'pager' }));
    renderRuns();
  }

  // pendingList shows the changes the watcher has seen but no finished
  // run has handled yet.
  function pendingList(v) {
    const st = v.state || {};
    const list = st.pending || [];
    const box = el('details', { class: 'pending-list', id: 'pending-list', hidden: !list.length, 'data-count': String(st.pendingCount || 0) },
      el('summary', null, 'Pending changes (' + (st.pendingCount || list.length) + ')'),
      el('ul', { class: 'paths' }, list.map((p) => el('li', { class: 'pk-' + p.kind },
        el('span', { class: 'pkind' }, p.kind), ' ', el('code', null, p.path)))),
      (st.pendingCount || 0) > list.length ? el('p', { class: 'muted' }, 'and ' + (st.pendingCount - list.length) + ' more') : null);
    return box;
  }

  // filterOptions offers every outcome the history holds, and "undone".
  function filterOptions() {
    const sel = document.getElementById('run-filter');
    if (!sel) return;
    const seen = new Set();
    for (const r of page.runs) seen.add(outcomeOf(r));
    const opts = [['', 'All outcomes']];
    for (const o of Array.from(seen).sort()) opts.push([o, o]);
    if (page.runs.some(isUndone)) opts.push(['undone', 'undone']);
    if (page.filter && !opts.some((o) => o[0] === page.filter)) opts.push([page.filter, page.filter]);
    clear(sel);
    for (const [value, label] of opts) sel.append(el('option', { value: value }, label));
    sel.value = page.filter;
  }

  function matching() {
    const q = page.query.trim().toLowerCase();
    const words = q ? q.split(/\s+/) : [];
    return page.runs.filter((r) => {
      if (page.filter === 'undone' ? !isUndone(r) : (page.filter && outcomeOf(r) !== page.filter)) return false;
      if (!words.length) return true;
      const text = searchText(r);
      return words.every((w) => text.includes(w));
    });
  }

  // renderRuns draws the page of runs that match the search and filter.
  function renderRuns() {
    const box = document.getElementById('runs');
    if (!box) return;
    filterOptions();
    const list = matching();
    if (page.offset >= list.length) page.offset = Math.max(0, Math.floor((list.length - 1) / PAGE) * PAGE);
    const shown = list.slice(page.offset, page.offset + PAGE);
    clear(box);
    if (!page.runs.length) box.append(el('p', { class: 'muted' }, 'No runs yet.'));
    else if (!list.length) box.append(el('p', { class: 'muted', id: 'no-match' }, 'No run matches.'));
    for (const run of shown) {
      const open = page.expanded.has(run.id);
      const art = renderRun(run, { expanded: open, onToggle: onToggleRun, onUndo: undoRun });
      box.append(art);
      if (open) loadChanges(run, art);
    }
    const count = document.getElementById('run-count');
    if (count) count.textContent = list.length === page.runs.length ? String(list.length) : list.length + ' of ' + page.runs.length;
    const pager = document.getElementById('pager');
    clear(pager);
    if (list.length > PAGE) {
      const last = Math.min(list.length, page.offset + PAGE);
      pager.append(
        el('button', { type: 'button', id: 'newer', disabled: page.offset === 0,
          onclick: () => { page.offset = Math.max(0, page.offset - PAGE); renderRuns(); } }, '← Newer'),
        el('span', { class: 'muted', id: 'page-info' }, (page.offset + 1) + '–' + last + ' of ' + list.length),
        el('button', { type: 'button', id: 'older', disabled: last >= list.length,
          onclick: () => { page.offset += PAGE; renderRuns(); } }, 'Older →'));
    }
  }

  function onToggleRun(run, art, open) {
    if (open) {
      page.expanded.add(run.id);
      loadChanges(run, art);
    } else {
      page.expanded.delete(run.id);
    }
  }

  // loadChanges fills a run's "What changed" from the API, once.
  async function loadChanges(run, art) {
    const slot = art.querySelector('.changes-slot');
    if (!slot) return;
    const name = page.name;
    const key = run.id + (isUndone(run) ? ':undone' : '');
    let rc = page.changes.get(key);
    try {
      if (!rc) {
        rc = await api('GET', '/v1/watchers/' + enc(name) + '/runs/' + enc(run.id) + '/changes');
        page.changes.set(key, rc);
      }
    } catch (e) {
      clear(slot);
      slot.append(el('h3', null, 'What changed'), el('p', { class: 'result error' }, 'Could not read what this run changed: ' + e.message));
      return;
    }
    if (page.name !== name) return;
    clear(slot);
    slot.append(el('h3', null, 'What changed'), renderChanges(rc));
  }

  // undoRun reverses one run, as `tend undo NAME --run ID` does.
  async function undoRun(run, btn) {
    const out = btn.parentElement.querySelector('.run-result');
    btn.disabled = true;
    try {
      const r = await api('POST', '/v1/watchers/' + enc(page.name) + '/undo', { runId: run.id });
      const restored = (r && r.restored) || [];
      out.className = 'run-result ok';
      clear(out);
      out.append('Undone: restored ' + plural(restored.length, 'path') + '.');
      out.hidden = false;
      await reloadHistory();
    } catch (e) {
      const conflicts = (e.data && e.data.conflicts) || [];
      out.className = 'run-result error';
      clear(out);
      out.append(el('strong', null, 'Undo refused: ' + e.message),
        conflicts.length ? el('ul', { class: 'paths' }, conflicts.map((p) => el('li', null, el('code', null, p)))) : null);
      out.hidden = false;
      btn.disabled = false;
    }
  }

  function toggleLabel(b) {
    return (b === 'Paused' || b === 'Exhausted' || b === 'Error') ? 'Resume' : 'Pause';
  }

  function updateWatcherHead(v) {
    const b = badgeOf(v);
    const slot = document.getElementById('badge');
    if (!slot) return;
    clear(slot);
    slot.append(badge(b.badge));
    document.getElementById('toggle').textContent = toggleLabel(b.badge);
    document.getElementById('fires').textContent = plural(b.fires || 0, 'fire');
    document.getElementById('pending').textContent = b.pending + ' pending';
    const pl = document.getElementById('pending-list');
    if (pl && String(b.pending) !== pl.getAttribute('data-count')) refreshPending();
    const r = document.getElementById('reason');
    r.textContent = b.reason;
    r.hidden = !b.reason;
  }

  // refreshPending reads the watcher again for its list of pending changes.
  async function refreshPending() {
    const name = page.name;
    let v;
    try { v = await api('GET', '/v1/watchers/' + enc(name)); } catch (_) { return; }
    const pl = document.getElementById('pending-list');
    if (page.kind !== 'watcher' || page.name !== name || !pl) return;
    const fresh = pendingList(v);
    fresh.open = pl.open;
    pl.replaceWith(fresh);
  }

  async function reloadHistory() {
    if (page.kind !== 'watcher') return;
    const name = page.name;
    let runs;
    try {
      runs = await api('GET', '/v1/watchers/' + enc(name) + '/history');
    } catch (e) {
      return;
    }
    if (page.kind !== 'watcher' || page.name !== name || !document.getElementById('runs')) return;
    page.runs = runs || [];
    renderRuns();
  }

  function result(kind, ...kids) {
    const r = document.getElementById('result');
    if (!r) return;
    clear(r);
    r.className = 'result ' + kind;
    r.append(...kids);
    r.hidden = false;
  }

  async function act(btn, fn) {
    btn.disabled = true;
    try { await fn(); } catch (e) { result('error', e.message); } finally { btn.disabled = false; }
  }

  function runNow(ev) {
    return act(ev.currentTarget, async () => {
      const r = await api('POST', '/v1/watchers/' + enc(page.name) + '/run', { dryRun: false });
      result('ok', 'Run ' + (r && r.runId ? r.runId : '') + ' started.');
    });
  }

  function toggle(ev) {
    const btn = ev.currentTarget;
    return act(btn, async () => {
      if (btn.textContent === 'Resume') {
        const v = views.get(page.id);
        const exhausted = v && badgeOf(v).badge === 'Exhausted';
        await api('POST', '/v1/watchers/' + enc(page.name) + '/resume', { reset: exhausted });
        result('ok', 'Resumed.');
      } else {
        await api('POST', '/v1/watchers/' + enc(page.name) + '/pause', {});
        result('ok', 'Paused. A run in flight was cancelled.');
      }
    });
  }

  function undo(ev) {
    return act(ev.currentTarget, async () => {
      try {
        const r = await api('POST', '/v1/watchers/' + enc(page.name) + '/undo', {});
        const restored = (r && r.restored) || [];
        result('ok', el('div', { id: 'undo-result' },
          el('strong', null, 'Undid run ' + r.runId + ': restored ' + plural(restored.length, 'path') + '.'),
          restored.length ? el('ul', { class: 'paths' }, restored.map((p) => el('li', null, el('code', null, p)))) : null));
      } catch (e) {
        const conflicts = (e.data && e.data.conflicts) || [];
        result('error', el('div', { id: 'undo-result' },
          el('strong', null, 'Undo refused: ' + e.message),
          conflicts.length ? [el('div', null, 'Changed since the run:'),
            el('ul', { class: 'paths' }, conflicts.map((p) => el('li', null, el('code', null, p))))] : null));
      }
      reloadHistory();
    });
  }

  // ---- errors ------------------------------------------------------------

  function renderError(text) {
    clear(app);
    app.append(el('a', { class: 'back', href: '#/' }, '← All watchers'), el('p', { class: 'result error' }, text));
  }

  // ---- live updates ------------------------------------------------------

  let refreshing = null;
  function refreshList() {
    if (refreshing) return refreshing;
    refreshing = loadViews().then(() => {
      if (page.kind === 'list') renderList();
    }).catch(() => {}).finally(() => { refreshing = null; });
    return refreshing;
  }

  function onEvent(ev) {
    if (!ev || !ev.id) return;
    const prev = latest.get(ev.id);
    if (ev.removed) {
      latest.delete(ev.id);
      views.delete(ev.id);
      if (page.kind === 'list') renderList();
      if (page.kind === 'watcher' && page.id === ev.id) renderError('Watcher ' + ev.name + ' was removed.');
      return;
    }
    latest.set(ev.id, ev);
    const v = views.get(ev.id);
    if (!v) {
      if (listLoaded) refreshList(); // a watcher we have not seen: read the list again
      return;
    }
    if (page.kind === 'list') {
      if (prev && prev.badge === 'Running' && ev.badge !== 'Running') refreshList();
      else updateRow(v);
    } else if (page.kind === 'watcher' && page.id === ev.id) {
      updateWatcherHead(v);
      if (!prev || prev.badge !== ev.badge) reloadHistory();
    }
  }

  function setLive(on) {
    live.textContent = on ? 'live' : 'reconnecting…';
    live.className = 'live ' + (on ? 'on' : 'off');
  }

  function connect() {
    const es = new EventSource('/v1/events', { withCredentials: true });
    es.onopen = () => setLive(true);
    es.onerror = () => setLive(false);
    es.onmessage = (m) => {
      let ev;
      try { ev = JSON.parse(m.data); } catch (_) { return; }
      onEvent(ev);
    };
  }

  // ---- start -------------------------------------------------------------

  document.getElementById('panic').addEventListener('click', async (e) => {
    const btn = e.currentTarget;
    btn.disabled = true;
    try {
      await api('POST', '/v1/panic', {});
      showNotice('Every watcher is paused and no run is going. Resume them one by one, or with `tend resume --all`.', 'ok');
    } catch (err) {
      showNotice('Pause all failed: ' + err.message);
    } finally {
      btn.disabled = false;
    }
  });

  function route() {
    const m = (location.hash || '#/').match(/^#\/w\/(.+)$/);
    if (m) {
      let name;
      try { name = decodeURIComponent(m[1]); } catch (_) { name = m[1]; }
      showWatcher(name);
    } else {
      showList();
    }
  }

  window.addEventListener('hashchange', route);
  connect();
  route();
})();
