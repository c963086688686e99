// tend history viewer: what one run changed. The before and after trees
// of the paths it touched, and a line diff of every text file it edited
// or overwrote, from GET /v1/watchers/{ref}/runs/{run}/changes. Text only
// ever reaches the page as text nodes.
'use strict';

window.tendDiff = (function () {
  const { el } = window.tendRender;

  // Above this many cells the middle of two texts is shown as removed
  // then added instead of aligned line by line: the table would cost more
  // than the page is worth.
  const MAX_CELLS = 4e6;
  // Unchanged lines kept around each change; longer unchanged stretches
  // fold into one "… n unchanged lines" row.
  const CONTEXT = 3;

  function splitLines(s) {
    if (s === '') return [];
    const lines = s.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines;
  }

  // lineDiff aligns two texts line by line (longest common subsequence
  // after the common head and tail are set aside). Each row is
  // { t: ' ' | '-' | '+', a, b, s } with 1-based line numbers.
  function lineDiff(before, after) {
    const a = splitLines(before), b = splitLines(after);
    let head = 0;
    while (head < a.length && head < b.length && a[head] === b[head]) head++;
    let tail = 0;
    while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
    const am = a.slice(head, a.length - tail), bm = b.slice(head, b.length - tail);
    const rows = [];
    for (let i = 0; i < head; i++) rows.push({ t: ' ', a: i + 1, b: i + 1, s: a[i] });
    const n = am.length, m = bm.length;
    if (n * m > MAX_CELLS) {
      am.forEach((s, i) => rows.push({ t: '-', a: head + i + 1, s }));
      bm.forEach((s, j) => rows.push({ t: '+', b: head + j + 1, s }));
    } else {
      // lcs[i][j]: the longest common subsequence of am[i:] and bm[j:].
      const w = m + 1;
      const lcs = new Uint32Array((n + 1) * w);
      for (let i = n - 1; i >= 0; i--) {
        for (let j = m - 1; j >= 0; j--) {
          lcs[i * w + j] = am[i] === bm[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
        }
      }
      let i = 0, j = 0;
      while (i < n || j < m) {
        if (i < n && j < m && am[i] === bm[j]) {
          rows.push({ t: ' ', a: head + i + 1, b: head + j + 1, s: am[i] }); i++; j++;
        } else if (j < m && (i === n || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j])) {
          rows.push({ t: '+', b: head + j + 1, s: bm[j] }); j++;
        } else {
          rows.push({ t: '-', a: head + i + 1, s: am[i] }); i++;
        }
      }
    }
    for (let k = tail; k > 0; k--) {
      rows.push({ t: ' ', a: a.length - k + 1, b: b.length - k + 1, s: a[a.length - k] });
    }
    return rows;
  }

  // fold keeps CONTEXT unchanged lines around each change.
  function fold(rows) {
    const keep = rows.map((r) => r.t !== ' ');
    const near = rows.map(() => false);
    rows.forEach((r, i) => {
      if (!keep[i]) return;
      for (let k = Math.max(0, i - CONTEXT); k <= Math.min(rows.length - 1, i + CONTEXT); k++) near[k] = true;
    });
    const out = [];
    let skipped = 0;
    rows.forEach((r, i) => {
      if (near[i]) {
        if (skipped) out.push({ fold: skipped });
        skipped = 0;
        out.push(r);
      } else {
        skipped++;
      }
    });
    if (skipped) out.push({ fold: skipped });
    return out;
  }

  function renderFile(fc) {
    const head = el('summary', null,
      el('code', { class: 'fpath' }, fc.path),
      el('span', { class: 'fop' }, fc.op === 'write' ? 'overwritten' : 'edited'));
    const box = el('details', { class: 'file-diff', open: true, 'data-path': fc.path }, head);
    if (fc.note) box.append(el('p', { class: 'muted note' }, fc.note));
    if (fc.before === undefined || fc.after === undefined) return box;
    const rows = lineDiff(fc.before, fc.after);
    let adds = 0, dels = 0;
    for (const r of rows) { if (r.t === '+') adds++; else if (r.t === '-') dels++; }
    head.append(el('span', { class: 'fstat' }, el('span', { class: 'adds' }, '+' + adds), ' ', el('span', { class: 'dels' }, '−' + dels)));
    // The columns' widths come from a colgroup: with a fixed layout the
    // first row would set them, and that may be a folded stretch.
    const table = el('table', { class: 'diff' },
      el('colgroup', null, el('col', { class: 'ln' }), el('col', { class: 'ln' }), el('col', { class: 'code' })));
    for (const r of fold(rows)) {
      if (r.fold) {
        table.append(el('tr', { class: 'fold' }, el('td', { colspan: 3 }, '… ' + r.fold + ' unchanged line' + (r.fold === 1 ? '' : 's'))));
        continue;
      }
      const cls = r.t === '+' ? 'add' : r.t === '-' ? 'del' : 'ctx';
      table.append(el('tr', { class: cls },
        el('td', { class: 'ln' }, r.a || ''),
        el('td', { class: 'ln' }, r.b || ''),
        el('td', { class: 'code' }, el('span', { class: 'mark' }, r.t), r.s)));
    }
    box.append(table);
    return box;
  }

  // indent sets the depth through the CSSOM (the page's policy allows no
  // style attributes).
  function indent(li, depth) {
    li.style.setProperty('--depth', String(depth));
    return li;
  }

  // tree shows paths nested under their folders; the folders a path
  // needs are shown even when the run did not touch them.
  function renderTree(entries, side) {
    const ul = el('ul', { class: 'tree' });
    const shown = new Set();
    for (const e of entries) {
      const parts = e.path.split('/');
      for (let d = 0; d < parts.length - 1; d++) {
        const dir = parts.slice(0, d + 1).join('/');
        if (shown.has(dir)) continue;
        shown.add(dir);
        if (entries.some((x) => x.path === dir)) continue; // listed itself
        ul.append(indent(el('li', { class: 'dir' }, el('span', { class: 'name' }, parts[d] + '/')), d));
      }
      shown.add(e.path);
      const depth = parts.length - 1;
      ul.append(indent(el('li', { class: (e.kind === 'dir' ? 'dir ' : 'file ') + (e.status || 'same'), 'data-path': e.path },
        el('span', { class: 'name' }, parts[depth] + (e.kind === 'dir' ? '/' : '')),
        e.status ? el('span', { class: 'st' }, e.status) : null), depth));
    }
    if (!entries.length) ul.append(el('li', { class: 'muted' }, side === 'before' ? '(none of these paths existed)' : '(none of these paths remain)'));
    return ul;
  }

  function renderChanges(rc) {
    const box = el('div', { class: 'changes-view' });
    if (rc.dryRun) box.append(el('p', { class: 'muted' }, 'A dry run: these changes were planned, not made.'));
    if (rc.undone) box.append(el('p', { class: 'muted' }, 'This run was undone: the folder holds the “before” side again.'));
    box.append(el('div', { class: 'trees' },
      el('div', { class: 'tree-side before' }, el('h3', null, 'Before'), renderTree(rc.before || [], 'before')),
      el('div', { class: 'tree-side after' }, el('h3', null, 'After'), renderTree(rc.after || [], 'after'))));
    const files = rc.files || [];
    if (files.length) {
      box.append(el('h3', null, 'Edits and overwrites'));
      box.append(...files.map(renderFile));
    }
    if (rc.omitted) box.append(el('p', { class: 'muted' }, rc.omitted + ' more file(s) left out: the answer reached its size limit.'));
    return box;
  }

  return { lineDiff, renderChanges };
})();
