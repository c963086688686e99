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
  const { el, clear, badge, when, ago, plural, renderRun } = window.tendRender;

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
    page = { kind: 'watcher', name: name, id: null };
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
      el('details', { class: 'instructions' },
        el('summary', null, 'Instructions'),
        el('pre', null, d.instructions || (d.skill ? 'skill: ' + d.skill : ''))),
      el('div', { class: 'actions' },
        el('button', { type: 'button', id: 'run-now', onclick: runNow }, 'Run now'),
        el('button', { type: 'button', id: 'toggle', onclick: toggle }, toggleLabel(b.badge)),
        el('button', { type: 'button', id: 'undo', onclick: undo }, 'Undo last run')),
      el('div', { class: 'result', id: 'result', hidden: true }),
      el('h2', null, 'Runs ', el('span', { class: 'count' }, String(runs.length))),
      el('div', { id: 'runs' }, runs.length ? runs.map(renderRun) : el('p', { class: 'muted' }, 'No runs yet.')));
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
    const r = document.getElementById('reason');
    r.textContent = b.reason;
    r.hidden = !b.reason;
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
    const box = document.getElementById('runs');
    if (!box || page.name !== name) return;
    clear(box);
    runs = runs || [];
    if (runs.length) box.append(...runs.map(renderRun));
    else box.append(el('p', { class: 'muted' }, 'No runs yet.'));
    const count = box.previousElementSibling && box.previousElementSibling.querySelector('.count');
    if (count) count.textContent = String(runs.length);
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
