// kifu explorer: the page of `kifu serve`. Plain JavaScript, no build step. The page holds no
// Go or chess rules and no search: every board, answer and game comes from the JSON API.
'use strict';

const $ = (id) => document.getElementById(id);
const LETTERS = 'ABCDEFGHJKLMNOPQRSTUVWXYZ';
const PAGE = 50;

// ---------- talking to the server ----------

const inflight = {};

// One request per purpose at a time: a newer one aborts the older (and the server stops the
// search whose client went away).
async function api(purpose, path, body) {
  if (inflight[purpose]) inflight[purpose].abort();
  const ctl = new AbortController();
  inflight[purpose] = ctl;
  const opts = { signal: ctl.signal, headers: {} };
  if (body !== undefined) {
    opts.method = 'POST';
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const started = performance.now();
  $('status').textContent = 'working…';
  let res;
  try {
    res = await fetch(path, opts);
  } finally {
    if (inflight[purpose] === ctl) delete inflight[purpose];
  }
  const text = await res.text();
  let data;
  try { data = JSON.parse(text); } catch (_) { data = { error: text || res.statusText }; }
  $('status').textContent = `${Math.round(performance.now() - started)} ms`;
  if (!res.ok) {
    const err = new Error(data.error || res.statusText);
    err.field = data.field;
    err.status = res.status;
    throw err;
  }
  return data;
}

function showError(e) {
  if (e && e.name === 'AbortError') return;
  const box = $('error');
  box.textContent = e.field ? `${e.message} (in ${e.field})` : e.message;
  box.hidden = false;
  $('status').textContent = 'error';
}

function clearError() { $('error').hidden = true; }

function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

// The page is busy while any of its updates runs (`data-busy` on the body: tests wait on it).
let busyCount = 0;
async function busy(fn) {
  busyCount++;
  document.body.dataset.busy = '1';
  try {
    return await fn();
  } finally {
    if (--busyCount === 0) delete document.body.dataset.busy;
  }
}

// ---------- the Go board (SVG) ----------

const SVG_NS = 'http://www.w3.org/2000/svg';
const CELL = 30;

function el(name, attrs, parent, text) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function pointName(col, row, size) { return LETTERS[col] + (size - row); }

function parsePoint(name, size) {
  const m = /^([A-HJ-Z])(\d+)$/i.exec(name || '');
  if (!m) return null;
  const col = LETTERS.indexOf(m[1].toUpperCase());
  const row = size - Number(m[2]);
  if (col < 0 || col >= size || row < 0 || row >= size) return null;
  return { col, row };
}

function starPoints(n) {
  if (n < 7) return [];
  const e = n >= 13 ? 3 : 2;
  const far = n - 1 - e;
  const pts = [[e, e], [e, far], [far, e], [far, far]];
  if (n % 2 === 1 && n >= 9) {
    const m = (n - 1) / 2;
    pts.push([m, m]);
    if (n >= 13) pts.push([e, m], [m, e], [far, m], [m, far]);
  }
  return pts;
}

function winColor(rate) {
  // White wins (0) blue, Black wins (1) red.
  const a = [43, 108, 176], b = [197, 48, 48];
  const c = a.map((x, i) => Math.round(x + (b[i] - x) * rate));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

// Draws `rows` (strings from the top) on `svg`. opts: last (point name), marks
// ([{col,row,text,fill,title,onclick}]), sel ({c0,r0,c1,r1}), wild ({"c,r": letter}).
function drawBoard(svg, rows, opts = {}) {
  const n = rows.length;
  const size = CELL * (n + 1);
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('xmlns', SVG_NS);
  svg.replaceChildren();
  el('rect', { x: 0, y: 0, width: size, height: size, fill: '#dcb35c' }, svg);
  const at = (i) => CELL * (i + 1);
  for (let i = 0; i < n; i++) {
    el('line', { x1: at(0), y1: at(i), x2: at(n - 1), y2: at(i), stroke: '#222', 'stroke-width': 1 }, svg);
    el('line', { x1: at(i), y1: at(0), x2: at(i), y2: at(n - 1), stroke: '#222', 'stroke-width': 1 }, svg);
    const label = { 'font-size': 10, 'text-anchor': 'middle', fill: '#333', 'font-family': 'sans-serif' };
    el('text', { ...label, x: at(i), y: 14 }, svg, LETTERS[i]);
    el('text', { ...label, x: at(i), y: size - 6 }, svg, LETTERS[i]);
    el('text', { ...label, x: 12, y: at(i) + 3 }, svg, String(n - i));
    el('text', { ...label, x: size - 12, y: at(i) + 3 }, svg, String(n - i));
  }
  for (const [c, r] of starPoints(n)) el('circle', { cx: at(c), cy: at(r), r: 3, fill: '#222' }, svg);
  if (opts.sel) {
    const s = opts.sel;
    el('rect', {
      x: at(s.c0) - CELL / 2, y: at(s.r0) - CELL / 2,
      width: CELL * (s.c1 - s.c0 + 1), height: CELL * (s.r1 - s.r0 + 1),
      fill: 'rgba(255,255,255,.25)', stroke: '#0a5', 'stroke-width': 2, 'stroke-dasharray': '6 3',
      class: 'selection',
    }, svg);
  }
  const last = parsePoint(opts.last, n);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const ch = rows[r][c];
      if (ch === '#' || ch === 'O') {
        el('circle', {
          cx: at(c), cy: at(r), r: CELL * 0.47, fill: ch === '#' ? '#111' : '#fafafa',
          stroke: '#111', 'stroke-width': 1, class: ch === '#' ? 'stone black' : 'stone white',
        }, svg);
        if (last && last.col === c && last.row === r) {
          el('circle', { cx: at(c), cy: at(r), r: CELL * 0.2, fill: 'none', stroke: ch === '#' ? '#fff' : '#111', 'stroke-width': 2 }, svg);
        }
      }
      const w = opts.wild && opts.wild[`${c},${r}`];
      if (w) {
        el('text', {
          x: at(c), y: at(r) + 5, 'text-anchor': 'middle', 'font-size': 16, 'font-weight': 'bold',
          fill: '#0a5', class: 'wildcard', 'font-family': 'sans-serif',
        }, svg, w);
      }
    }
  }
  for (const m of opts.marks || []) {
    const g = el('g', { class: 'mark', 'data-point': pointName(m.col, m.row, n) }, svg);
    el('circle', { cx: at(m.col), cy: at(m.row), r: CELL * 0.45, fill: m.fill, opacity: 0.9 }, g);
    el('text', {
      x: at(m.col), y: at(m.row) + 4, 'text-anchor': 'middle', 'font-size': m.text.length > 3 ? 9 : 11,
      fill: '#fff', 'font-weight': 'bold', 'font-family': 'sans-serif',
    }, g, m.text);
    if (m.title) el('title', {}, g, m.title);
    if (m.onclick) {
      g.style.cursor = 'pointer';
      g.addEventListener('click', (ev) => { ev.stopPropagation(); m.onclick(); });
    }
  }
}

// The board point under a mouse event, or null.
function eventPoint(svg, ev, n) {
  const box = svg.getBoundingClientRect();
  const scale = (CELL * (n + 1)) / box.width;
  const col = Math.round(((ev.clientX - box.left) * scale) / CELL - 1);
  const row = Math.round(((ev.clientY - box.top) * scale) / CELL - 1);
  if (col < 0 || row < 0 || col >= n || row >= n) return null;
  return { col, row };
}

// ---------- Go explorer ----------

const go = {
  info: null, db: 0, size: 19, setup: null, toPlay: 'B', moves: [],
  sel: null, wild: {}, kind: 'board', offset: 0, view: null, answer: null, sort: null,
};

function currentDb() { return go.info && go.info.databases[go.db]; }

function options() {
  const num = (id) => ($(id).value === '' ? null : Number($(id).value));
  return {
    placement: $('opt-placement').value, symmetries: $('opt-symmetries').checked,
    swap: $('opt-swap').checked, next: $('opt-to-play').value, from: num('opt-from'), to: num('opt-to'),
    variations: $('opt-variations').checked, nodup: $('opt-nodup').checked,
  };
}

const FILTERS = [['player', 'f-player'], ['black', 'f-black'], ['white', 'f-white'], ['event', 'f-event'],
  ['date_from', 'f-date-from'], ['date_to', 'f-date-to'], ['winner', 'f-winner'], ['result', 'f-result']];

function filters() {
  const f = {};
  for (const [k, id] of FILTERS) if ($(id).value.trim() !== '') f[k] = $(id).value.trim();
  return f;
}

// The pattern of the selection: the current board's stones with the wildcards put in.
function patternRows() {
  const s = go.sel;
  const out = [];
  for (let r = s.r0; r <= s.r1; r++) {
    let line = '';
    for (let c = s.c0; c <= s.c1; c++) line += go.wild[`${c},${r}`] || go.view.rows[r][c];
    out.push(line);
  }
  return out;
}

function queryOf(pattern, extra) {
  const o = options();
  const q = { pattern, symmetries: o.symmetries, swap_colors: o.swap, variations: o.variations, filters: filters(), ...extra };
  if (o.next) q.to_play = o.next;
  if (o.from !== null || o.to !== null) q.moves = [o.from ?? 0, o.to ?? 100000];
  return q;
}

function searchBody() {
  const o = options();
  if (go.kind === 'pattern' && go.sel) {
    const s = go.sel;
    const body = { query: queryOf(patternRows().join('/')), offset: go.offset, limit: PAGE, no_duplicates: o.nodup };
    if (o.placement === 'anywhere') body.query.placement = { kind: 'anywhere' };
    else body.region = { col: s.c0, row: s.r0, width: s.c1 - s.c0 + 1, height: s.r1 - s.r0 + 1 };
    return body;
  }
  // The whole board as a pattern, for a full-board search with filters.
  return {
    query: { pattern: go.view.rows.join('/'), placement: { kind: 'at', col: 0, row: 0 }, to_play: go.view.to_play, filters: filters() },
    offset: go.offset, limit: PAGE, no_duplicates: o.nodup,
  };
}

function writeHash() {
  const p = new URLSearchParams();
  p.set('tab', 'go');
  p.set('db', go.db);
  if (go.setup) p.set('setup', go.setup.join('/'));
  if (go.toPlay !== 'B') p.set('first', go.toPlay);
  if (go.moves.length) p.set('moves', go.moves.join(','));
  if (go.sel) p.set('sel', [go.sel.c0, go.sel.r0, go.sel.c1, go.sel.r1].join(','));
  const wild = Object.entries(go.wild).map(([k, v]) => `${k.replace(',', ':')}:${v}`);
  if (wild.length) p.set('wild', wild.join(';'));
  if (go.kind === 'pattern' || go.kind === 'games') p.set('search', go.kind);
  if (go.offset) p.set('offset', go.offset);
  const o = options();
  if (o.placement !== 'region') p.set('placement', o.placement);
  if (!o.symmetries) p.set('symmetries', '0');
  if (o.swap) p.set('swap', '1');
  if (o.next) p.set('next', o.next);
  if (o.from !== null) p.set('from', o.from);
  if (o.to !== null) p.set('to', o.to);
  if (o.variations) p.set('variations', '1');
  if (o.nodup) p.set('nodup', '1');
  for (const [k, v] of Object.entries(filters())) p.set(`f_${k}`, v);
  const hash = '#' + p.toString();
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

function readHash(p) {
  go.db = Number(p.get('db') || 0);
  go.setup = p.get('setup') ? p.get('setup').split('/') : null;
  go.toPlay = p.get('first') === 'W' ? 'W' : 'B';
  go.moves = p.get('moves') ? p.get('moves').split(',') : [];
  const sel = (p.get('sel') || '').split(',').map(Number);
  go.sel = sel.length === 4 && sel.every(Number.isInteger) ? { c0: sel[0], r0: sel[1], c1: sel[2], r1: sel[3] } : null;
  go.wild = {};
  for (const w of (p.get('wild') || '').split(';').filter(Boolean)) {
    const [c, r, v] = w.split(':');
    if ('*xo'.includes(v)) go.wild[`${c},${r}`] = v;
  }
  const kind = p.get('search');
  go.kind = kind === 'pattern' && go.sel ? 'pattern' : kind === 'games' ? 'games' : 'board';
  go.offset = Number(p.get('offset') || 0);
  $('opt-placement').value = p.get('placement') === 'anywhere' ? 'anywhere' : 'region';
  $('opt-symmetries').checked = p.get('symmetries') !== '0';
  $('opt-swap').checked = p.get('swap') === '1';
  $('opt-to-play').value = p.get('next') || '';
  $('opt-from').value = p.get('from') || '';
  $('opt-to').value = p.get('to') || '';
  $('opt-variations').checked = p.get('variations') === '1';
  $('opt-nodup').checked = p.get('nodup') === '1';
  for (const [k, id] of FILTERS) $(id).value = p.get(`f_${k}`) || '';
}

function refresh() { return busy(refreshNow); }

async function refreshNow() {
  clearError();
  const db = currentDb();
  if (!db) return;
  go.size = db.size;
  try {
    go.view = await api('board', '/api/go/board', { size: go.size, setup: go.setup ? go.setup.join('/') : undefined, to_play: go.toPlay, moves: go.moves });
  } catch (e) {
    showError(e);
    return;
  }
  $('to-play').textContent = `${go.view.to_play === 'B' ? 'Black' : 'White'} to play · move ${go.view.moves} · captures B ${go.view.captures.black} W ${go.view.captures.white}`;
  drawGo();
  updatePatternBox();
  writeHash();
  await runSearch();
}

function drawGo() {
  if (!go.view) return;
  drawBoard($('board'), go.view.rows, { last: go.view.last, marks: marks(), sel: go.sel, wild: go.wild });
}

function marks() {
  const a = go.answer;
  if (!a || !go.view || a.kind === 'games') return [];
  const n = go.view.size;
  const out = [];
  if (a.kind === 'lookup' || a.kind === 'board') {
    for (const c of a.continuations) {
      const p = parsePoint(c.move, n);
      if (!p) continue;
      out.push({ ...p, text: String(c.count), fill: winColor(c.black_win_rate), title: `${c.move}: ${c.count} games, Black wins ${(100 * c.black_win_rate).toFixed(1)}%`, onclick: () => play(c.move) });
    }
  } else if (go.sel) {
    const seen = {};
    for (const c of a.continuations) {
      const col = go.sel.c0 + c.cell[0], row = go.sel.r0 + c.cell[1];
      if (col >= n || row >= n || seen[`${col},${row}`]) continue;
      seen[`${col},${row}`] = true;
      const name = pointName(col, row, n);
      out.push({ col, row, text: c.label || '?', fill: winColor(c.black_win_rate), title: `${c.label}: ${c.color} ${c.count}`, onclick: () => play(name) });
    }
  }
  return out;
}

function runSearch() { return busy(runSearchNow); }

async function runSearchNow() {
  const db = currentDb();
  const f = filters();
  const useLookup = go.kind === 'board' && Object.keys(f).length === 0 && !options().nodup;
  try {
    let a;
    if (go.kind === 'games') {
      // Filters alone: the games they pass, no position asked of them.
      a = await api('search', `/api/db/${go.db}/games`, { filters: f, offset: go.offset, limit: PAGE, no_duplicates: options().nodup });
      a.kind = 'games';
    } else if (useLookup) {
      a = await api('search', `/api/db/${go.db}/lookup`, {
        setup: go.setup ? go.setup.join('/') : undefined, to_play: go.toPlay, moves: go.moves,
        limit: Math.min(go.offset + PAGE, 1000),
      });
      a.kind = 'lookup';
      a.matches = a.matches.slice(go.offset);
    } else {
      a = await api('search', `/api/db/${go.db}/search`, searchBody());
      a.kind = go.kind;
    }
    go.answer = a;
  } catch (e) {
    go.answer = null;
    showError(e);
  }
  renderAnswer(db);
  drawGo();
}

function pct(x) { return (100 * x).toFixed(1); }

function renderAnswer(db) {
  const a = go.answer;
  const tbody = $('continuations').querySelector('tbody');
  tbody.replaceChildren();
  $('years').replaceChildren();
  $('games').querySelector('tbody').replaceChildren();
  if (!a) {
    $('summary').textContent = '';
    $('page-info').textContent = '';
    return;
  }
  const what = a.kind === 'pattern' ? 'Pattern' : a.kind === 'games' ? 'Filters alone' : 'Full board';
  $('summary-title').textContent = `${what} · ${db.name}`;
  if (a.kind === 'games') {
    const r = a.results;
    $('summary').textContent = `${a.games} of ${a.games_searched} games pass the filters · Black won ${r.black_wins} (${pct(r.black_win_rate)}%), White won ${r.white_wins} (${pct(r.white_win_rate)}%)`;
    $('continuations').hidden = true;
    if (a.by_year.length) drawYears(a.by_year, 'Games per year');
    renderGames();
    return;
  }
  $('continuations').hidden = false;
  let text = `${a.games} games, ${a.occurrences} occurrences`;
  if (a.swapped) text += ` (${a.swapped} with colours swapped)`;
  if (a.games_searched !== undefined) text += ` · ${a.games_searched} games searched`;
  $('summary').textContent = text;
  const row = (cells, onclick, cls) => {
    const tr = document.createElement('tr');
    if (cls) tr.className = cls;
    for (const c of cells) {
      const td = document.createElement('td');
      if (c instanceof Node) td.appendChild(c); else td.textContent = c;
      tr.appendChild(td);
    }
    if (onclick) tr.addEventListener('click', onclick);
    tbody.appendChild(tr);
  };
  const swatch = (rate) => {
    const s = document.createElement('span');
    s.className = 'swatch';
    s.style.background = winColor(rate);
    return s;
  };
  for (const c of a.continuations) {
    let name = c.move;
    if (a.kind !== 'lookup' && a.kind !== 'board' && go.sel) {
      name = `${c.label || ''} ${c.color} ${pointName(go.sel.c0 + c.cell[0], go.sel.r0 + c.cell[1], go.view.size)}`;
    }
    const target = a.kind === 'lookup' || a.kind === 'board' ? c.move : (go.sel ? pointName(go.sel.c0 + c.cell[0], go.sel.r0 + c.cell[1], go.view.size) : null);
    row([swatch(c.black_win_rate), name, c.count, c.black_wins, c.white_wins, pct(c.black_win_rate), pct(c.white_win_rate)],
      target ? () => play(target) : null, 'continuation');
  }
  for (const [label, t] of [['tenuki', a.tenuki], ['pass', a.passes]]) {
    if (t && t.count) row(['', label, t.count, t.black_wins, t.white_wins, pct(t.black_win_rate), pct(t.white_win_rate)], null, 'tenuki');
  }
  if (a.by_year && a.by_year.length) drawYears(a.by_year);
  renderGames();
}

function drawYears(years, heading = 'Hits per year') {
  const w = 420, h = 90;
  const svg = el('svg', { viewBox: `0 0 ${w} ${h + 16}`, width: w, height: h + 16, 'aria-label': 'hits per year' });
  const max = Math.max(...years.map((y) => y.hits));
  const bw = Math.max(2, Math.floor((w - 10) / years.length));
  years.forEach((y, i) => {
    const bh = Math.max(1, Math.round((h - 4) * y.hits / max));
    const r = el('rect', { x: 5 + i * bw, y: h - bh, width: bw - 1, height: bh, fill: '#8a6d3b', class: 'year' }, svg);
    el('title', {}, r, `${y.year}: ${y.hits} hits in ${y.games} games`);
  });
  const lab = { 'font-size': 10, fill: '#333', 'font-family': 'sans-serif' };
  el('text', { ...lab, x: 5, y: h + 12 }, svg, String(years[0].year));
  el('text', { ...lab, x: w - 5, y: h + 12, 'text-anchor': 'end' }, svg, String(years[years.length - 1].year));
  const title = document.createElement('h3');
  title.textContent = heading;
  $('years').append(title, svg);
}

function renderGames() {
  const a = go.answer;
  const tbody = $('games').querySelector('tbody');
  tbody.replaceChildren();
  if (!a) return;
  const list = a.matches.slice();
  if (go.sort) {
    const { key, dir } = go.sort;
    list.sort((x, y) => (x[key] < y[key] ? -dir : x[key] > y[key] ? dir : 0));
  }
  for (const m of list) {
    const tr = document.createElement('tr');
    tr.className = 'game';
    for (const v of [m.game, m.black, m.white, m.date, m.result, m.move ?? '']) {
      const td = document.createElement('td');
      td.textContent = v;
      tr.appendChild(td);
    }
    tr.addEventListener('click', () => openGame(m.game, m.move ?? 0));
    tbody.appendChild(tr);
  }
  const total = a.kind === 'games' ? a.games : a.occurrences;
  const end = Math.min(go.offset + a.matches.length, total);
  $('page-info').textContent = total ? `${go.offset + 1}–${end} of ${total}` : 'no matches';
  $('prev-page').disabled = go.offset === 0;
  $('next-page').disabled = end >= total || (a.kind === 'lookup' && go.offset + PAGE >= 1000);
}

function play(move) {
  // A move asks about the position again: filters alone give way to the board search.
  if (go.kind === 'games') go.kind = 'board';
  go.moves.push(move);
  go.offset = 0;
  refresh();
}

function editBoard(col, row, color) {
  // Edits change the setup: the board as it stands becomes the new start.
  const rows = go.view.rows.map((r) => r.split(''));
  const ch = color === 'B' ? '#' : 'O';
  rows[row][col] = rows[row][col] === ch ? '.' : ch;
  go.setup = rows.map((r) => r.join(''));
  if (go.kind === 'games') go.kind = 'board';
  go.toPlay = go.view.to_play;
  go.moves = [];
  go.offset = 0;
  refresh();
}

function updatePatternBox() {
  const has = !!go.sel;
  $('search-pattern').disabled = !has;
  $('clear-selection').disabled = !has;
  $('pattern-rows').textContent = has && go.view ? patternRows().join('\n') : '';
}

function mode() { return document.querySelector('input[name=mode]:checked').value; }

function setupBoardEvents() {
  const svg = $('board');
  let drag = null;
  svg.addEventListener('mousedown', (ev) => {
    if (mode() !== 'select' || !go.view) return;
    const p = eventPoint(svg, ev, go.view.size);
    if (p) drag = { start: p, moved: false };
    ev.preventDefault();
  });
  svg.addEventListener('mousemove', (ev) => {
    if (!drag) return;
    const p = eventPoint(svg, ev, go.view.size);
    if (!p) return;
    if (p.col !== drag.start.col || p.row !== drag.start.row) drag.moved = true;
    if (drag.moved) {
      go.sel = { c0: Math.min(p.col, drag.start.col), r0: Math.min(p.row, drag.start.row), c1: Math.max(p.col, drag.start.col), r1: Math.max(p.row, drag.start.row) };
      go.wild = {};
      drawGo();
    }
  });
  window.addEventListener('mouseup', (ev) => {
    if (!drag) return;
    const d = drag;
    drag = null;
    const p = eventPoint(svg, ev, go.view.size) || d.start;
    if (d.moved) {
      updatePatternBox();
      writeHash();
      return;
    }
    // A click inside the selection cycles the point: as on the board, any, empty-or-black,
    // empty-or-white.
    const s = go.sel;
    if (s && p.col >= s.c0 && p.col <= s.c1 && p.row >= s.r0 && p.row <= s.r1) {
      const k = `${p.col},${p.row}`;
      const next = { undefined: '*', '*': 'x', x: 'o', o: undefined }[go.wild[k]];
      if (next) go.wild[k] = next; else delete go.wild[k];
    } else {
      go.sel = { c0: p.col, r0: p.row, c1: p.col, r1: p.row };
      go.wild = {};
    }
    drawGo();
    updatePatternBox();
    writeHash();
  });
  svg.addEventListener('click', (ev) => {
    if (!go.view) return;
    const m = mode();
    if (m === 'select') return;
    const p = eventPoint(svg, ev, go.view.size);
    if (!p) return;
    if (m === 'play') play(pointName(p.col, p.row, go.view.size));
    else editBoard(p.col, p.row, m === 'black' ? 'B' : 'W');
  });
}

// ---------- the game viewer ----------

const viewer = { game: null, at: 0, match: 0 };

function openGame(id, move) { return busy(() => openGameNow(id, move)); }

async function openGameNow(id, move) {
  try {
    viewer.game = await api('game', `/api/db/${go.db}/games/${id}`);
  } catch (e) {
    showError(e);
    return;
  }
  viewer.match = move;
  const g = viewer.game;
  $('viewer-title').textContent = `Game ${g.game}: ${g.black} – ${g.white} ${g.date} ${g.result}`;
  $('viewer-sgf').href = `/api/db/${go.db}/games/${id}/sgf`;
  $('viewer').hidden = false;
  jumpToMatch();
}

function mainChild(i) { const c = viewer.game.nodes[i].children; return c.length ? c[0] : null; }

function jumpToMatch() {
  const nodes = viewer.game.nodes;
  let i = 0;
  while (nodes[i].number < viewer.match && mainChild(i) !== null) i = mainChild(i);
  if (nodes[i].number !== viewer.match) {
    const found = nodes.findIndex((n) => n.number === viewer.match);
    if (found >= 0) i = found;
  }
  showNode(i);
}

function showNode(i) {
  const g = viewer.game;
  viewer.at = i;
  const node = g.nodes[i];
  drawBoard($('viewer-board'), node.rows, { last: node.move });
  $('v-move').textContent = node.move ? `Move ${node.number}: ${node.color === 'B' ? 'Black' : 'White'} ${node.move}` : (node.parent === null ? 'Start' : `Move ${node.number}`);
  $('v-comment').textContent = node.comment || '';
  const vars = $('v-variations');
  vars.replaceChildren();
  if (node.children.length > 1) {
    node.children.forEach((c, k) => {
      const b = document.createElement('button');
      b.textContent = `${k === 0 ? 'main' : 'variation ' + k}: ${g.nodes[c].move || '—'}`;
      b.addEventListener('click', () => showNode(c));
      vars.appendChild(b);
    });
  }
}

function viewerStep(where) {
  const g = viewer.game;
  if (!g) return;
  let i = viewer.at;
  if (where === 'prev' && g.nodes[i].parent !== null) i = g.nodes[i].parent;
  if (where === 'next' && mainChild(i) !== null) i = mainChild(i);
  if (where === 'first') i = 0;
  if (where === 'last') while (mainChild(i) !== null) i = mainChild(i);
  showNode(i);
}

// ---------- book explorer ----------

const book = { fen: '', moves: [], forward: [] };
const PIECES = { K: '♔', Q: '♕', R: '♖', B: '♗', N: '♘', P: '♙', k: '♚', q: '♛', r: '♜', b: '♝', n: '♞', p: '♟' };

function drawChess(fen) {
  const box = $('chess-board');
  box.replaceChildren();
  const ranks = (fen.split(' ')[0] || '').split('/');
  for (let r = 0; r < 8; r++) {
    const cells = [];
    for (const ch of ranks[r] || '') {
      if (/\d/.test(ch)) for (let k = 0; k < Number(ch); k++) cells.push('');
      else cells.push(PIECES[ch] || '');
    }
    for (let c = 0; c < 8; c++) {
      const d = document.createElement('div');
      d.className = (r + c) % 2 === 0 ? 'light' : 'dark';
      d.dataset.square = 'abcdefgh'[c] + (8 - r);
      d.textContent = cells[c] || '';
      box.appendChild(d);
    }
  }
}

function writeBookHash() {
  const p = new URLSearchParams();
  p.set('tab', 'book');
  if (book.fen) p.set('fen', book.fen);
  if (book.moves.length) p.set('moves', book.moves.join(' '));
  const hash = '#' + p.toString();
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

function refreshBook() { return busy(refreshBookNow); }

async function refreshBookNow() {
  clearError();
  writeBookHash();
  $('book-line').textContent = book.moves.join(' ');
  $('book-back').disabled = book.moves.length === 0;
  $('book-forward').disabled = book.forward.length === 0;
  const books = go.info ? go.info.books : [];
  const box = $('books');
  box.replaceChildren();
  if (!books.length) {
    box.textContent = 'No books: start kifu serve with --book BOOK.bin.';
    drawChess('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
    return;
  }
  const q = new URLSearchParams();
  if (book.fen) q.set('fen', book.fen);
  if (book.moves.length) q.set('moves', book.moves.join(' '));
  let answers;
  try {
    answers = await Promise.all(books.map((b) => api(`book${b.id}`, `/api/books/${b.id}?${q}`)));
  } catch (e) {
    showError(e);
    return;
  }
  drawChess(answers[0].fen);
  $('book-fen').textContent = answers[0].fen;
  answers.forEach((a, k) => {
    const div = document.createElement('div');
    div.className = 'book';
    const h = document.createElement('h2');
    h.textContent = `${books[k].name} (${a.entries.length} moves)`;
    const t = document.createElement('table');
    t.className = 'data book-moves';
    t.innerHTML = '<thead><tr><th>Move</th><th>UCI</th><th>Weight</th><th>Share</th><th>Learn</th></tr></thead>';
    const tb = document.createElement('tbody');
    for (const e of a.entries) {
      const tr = document.createElement('tr');
      for (const v of [e.san ?? '?', e.uci ?? e.raw, e.weight, `${e.share.toFixed(2)}%`, e.learn]) {
        const td = document.createElement('td');
        td.textContent = v;
        tr.appendChild(td);
      }
      if (e.uci) tr.addEventListener('click', () => { book.moves.push(e.uci); book.forward = []; refreshBook(); });
      tb.appendChild(tr);
    }
    t.appendChild(tb);
    div.append(h, t);
    box.appendChild(div);
  });
}

function bookBack() {
  if (!book.moves.length) return;
  book.forward.push(book.moves.pop());
  refreshBook();
}

function bookForward() {
  if (!book.forward.length) return;
  book.moves.push(book.forward.pop());
  refreshBook();
}

// ---------- tabs, events, start ----------

function showTab(tab) {
  $('go-page').hidden = tab !== 'go';
  $('book-page').hidden = tab !== 'book';
  $('tab-go').classList.toggle('active', tab === 'go');
  $('tab-book').classList.toggle('active', tab === 'book');
}

function route() {
  const p = new URLSearchParams(location.hash.slice(1));
  const tab = p.get('tab') === 'book' || (!go.info.databases.length && go.info.books.length) ? 'book' : 'go';
  showTab(tab);
  if (tab === 'book') {
    book.fen = p.get('fen') || '';
    book.moves = (p.get('moves') || '').split(' ').filter(Boolean);
    book.forward = [];
    $('fen').value = book.fen;
    $('book-moves').value = book.moves.join(' ');
    refreshBook();
  } else {
    readHash(p);
    if (!currentDb()) {
      showError(new Error(go.info.databases.length ? `no database ${go.db}` : 'No databases: start kifu serve with a kifu pos index file.'));
      return;
    }
    $('db').value = go.db;
    refresh();
  }
}

function bind() {
  for (const a of document.querySelectorAll('nav a')) {
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      history.replaceState(null, '', `#tab=${a.dataset.tab}`);
      route();
    });
  }
  $('db').addEventListener('change', () => {
    go.db = Number($('db').value);
    go.setup = null; go.moves = []; go.sel = null; go.wild = {}; go.kind = 'board'; go.offset = 0;
    refresh();
  });
  $('undo').addEventListener('click', () => { if (go.moves.length) { go.moves.pop(); go.offset = 0; refresh(); } });
  $('pass').addEventListener('click', () => play('pass'));
  $('clear').addEventListener('click', () => {
    go.setup = null; go.toPlay = 'B'; go.moves = []; go.sel = null; go.wild = {}; go.kind = 'board'; go.offset = 0;
    refresh();
  });
  $('search-pattern').addEventListener('click', () => { go.kind = 'pattern'; go.offset = 0; writeHash(); runSearch(); });
  $('clear-selection').addEventListener('click', () => { go.sel = null; go.wild = {}; go.kind = 'board'; go.offset = 0; refresh(); });
  $('apply-filters').addEventListener('click', () => { go.offset = 0; writeHash(); runSearch(); });
  $('filter-games').addEventListener('click', () => { go.kind = 'games'; go.offset = 0; writeHash(); runSearch(); });
  for (const [, id] of FILTERS) $(id).addEventListener('keydown', (ev) => { if (ev.key === 'Enter') $('apply-filters').click(); });
  $('prev-page').addEventListener('click', () => { go.offset = Math.max(0, go.offset - PAGE); writeHash(); runSearch(); });
  $('next-page').addEventListener('click', () => { go.offset += PAGE; writeHash(); runSearch(); });
  for (const th of document.querySelectorAll('#games th[data-sort]')) {
    th.addEventListener('click', () => {
      const key = th.dataset.sort;
      go.sort = go.sort && go.sort.key === key ? { key, dir: -go.sort.dir } : { key, dir: 1 };
      renderGames();
    });
  }
  $('download-svg').addEventListener('click', () => {
    const text = new XMLSerializer().serializeToString($('board'));
    download('board.svg', new Blob([text], { type: 'image/svg+xml' }));
  });
  $('download-png').addEventListener('click', () => {
    const text = new XMLSerializer().serializeToString($('board'));
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = 800; canvas.height = 800;
      canvas.getContext('2d').drawImage(img, 0, 0, 800, 800);
      canvas.toBlob((b) => download('board.png', b), 'image/png');
    };
    img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(text);
  });
  $('download-games').addEventListener('click', async () => {
    const a = go.answer;
    if (!a) return;
    // A lookup's and the filters' pages name their games; a search is run again by the server.
    const body = a.kind === 'lookup' || a.kind === 'games' ? { games: [...new Set(a.matches.map((m) => m.game))] } : { search: searchBody() };
    try {
      const res = await fetch(`/api/db/${go.db}/sgf`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) { const e = await res.json(); throw Object.assign(new Error(e.error), { field: e.field }); }
      download('games.sgf', await res.blob());
    } catch (e) { showError(e); }
  });
  $('viewer-close').addEventListener('click', () => { $('viewer').hidden = true; });
  $('v-first').addEventListener('click', () => viewerStep('first'));
  $('v-prev').addEventListener('click', () => viewerStep('prev'));
  $('v-next').addEventListener('click', () => viewerStep('next'));
  $('v-last').addEventListener('click', () => viewerStep('last'));
  $('v-match').addEventListener('click', jumpToMatch);
  $('book-go').addEventListener('click', () => {
    book.fen = $('fen').value.trim();
    book.moves = $('book-moves').value.split(/\s+/).filter(Boolean);
    book.forward = [];
    refreshBook();
  });
  for (const id of ['fen', 'book-moves']) $(id).addEventListener('keydown', (ev) => { if (ev.key === 'Enter') $('book-go').click(); });
  $('book-back').addEventListener('click', bookBack);
  $('book-forward').addEventListener('click', bookForward);
  $('book-start').addEventListener('click', () => { book.moves = []; book.forward = []; refreshBook(); });
  document.addEventListener('keydown', (ev) => {
    if (ev.target instanceof HTMLInputElement) return;
    if (!$('viewer').hidden) {
      const k = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' }[ev.key];
      if (k) { viewerStep(k); ev.preventDefault(); }
      if (ev.key === 'Escape') $('viewer').hidden = true;
      return;
    }
    if (!$('book-page').hidden) {
      if (ev.key === 'ArrowLeft') bookBack();
      if (ev.key === 'ArrowRight') bookForward();
    } else if (ev.key === 'Backspace') {
      $('undo').click();
    }
  });
  setupBoardEvents();
}

async function start() {
  bind();
  await busy(async () => {
    try {
      go.info = await api('info', '/api/info');
    } catch (e) {
      showError(e);
      return;
    }
    for (const d of go.info.databases) {
      const o = document.createElement('option');
      o.value = d.id;
      o.textContent = `${d.name} (${d.games} games, ${d.size}x${d.size})`;
      $('db').appendChild(o);
    }
    route();
  });
}

start();
