// Browser tests of `kifu serve`: Debian's chromium, driven by playwright-core, clicks through the
// real page as a person would, and every number it reads off the page is checked against the
// kifu command line on the same database. Screenshots of each step go to target/browser/.
//
// Run: node --test tests/browser/   (tools/test_browser.sh installs what it needs first)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shared = path.resolve(root, '../shared');
const kifu = process.env.KIFU || path.join(root, 'target/release/kifu');
const out = path.join(root, 'target/browser');
const shots = path.join(out, 'screenshots');
const db = path.join(out, 'corpus.kpx');
const books = [path.join(shared, 'corpus/polyglot/books/gm2001.bin'), path.join(shared, 'corpus/polyglot/books/performance.bin')];
const LETTERS = 'ABCDEFGHJKLMNOPQRSTUVWXYZ';

let server;
let base;
let browser;
let page;

function cli(args) {
  return execFileSync(kifu, args, { cwd: out, encoding: 'utf8', maxBuffer: 1 << 28 });
}

function cliJson(args) {
  return JSON.parse(cli(args));
}

async function shot(name) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

// Waits until the page has finished every update it started.
async function settle() {
  await page.waitForFunction(() => !document.body.dataset.busy, null, { timeout: 30000 });
}

// The pixel centre of a point of a Go board SVG.
async function pointXY(selector, name) {
  const box = await page.locator(selector).boundingBox();
  const n = await page.evaluate((sel) => document.querySelector(sel).viewBox.baseVal.width / 30 - 1, selector);
  const col = LETTERS.indexOf(name[0]);
  const row = n - Number(name.slice(1));
  const cell = box.width / (n + 1);
  return { x: box.x + cell * (col + 1), y: box.y + cell * (row + 1) };
}

async function clickPoint(name) {
  const { x, y } = await pointXY('#board', name);
  await page.mouse.click(x, y);
  await settle();
}

function tableRows(selector) {
  return page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
}

before(async () => {
  assert.ok(existsSync(kifu), `no kifu binary at ${kifu} (cargo build --release first)`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
  cli(['pos', 'index', path.join(shared, 'corpus/sgf/games'), '-o', db]);
  server = spawn(kifu, ['serve', db, ...books.flatMap((b) => ['--book', b]), '--bind', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  base = await new Promise((resolve, reject) => {
    let err = '';
    server.stderr.on('data', (d) => {
      err += d;
      const m = /serving on (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    server.on('exit', (code) => reject(new Error(`kifu serve exited (${code}): ${err}`)));
  });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('pageerror', (e) => { throw e; });
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill('SIGINT');
});

test('playing an opening by clicks shows the continuations of kifu pos lookup', async () => {
  await page.goto(base);
  await settle();
  await page.waitForSelector('#board line', { state: 'attached' });
  await shot('01-empty-board');
  for (const p of ['Q16', 'D4', 'Q3']) await clickPoint(p);
  await shot('02-opening-played');
  // The position after B Q16, W D4, B Q3, White to play, as rows for the command line.
  const rows = Array.from({ length: 19 }, () => Array(19).fill('.'));
  const put = (name, c) => { rows[19 - Number(name.slice(1))][LETTERS.indexOf(name[0])] = c; };
  put('Q16', '#'); put('D4', 'O'); put('Q3', '#');
  const want = cliJson(['pos', 'lookup', db, '--board', rows.map((r) => r.join('')).join(''), '--to-play', 'W', '--json', '--limit', '50']);
  assert.ok(want.continuations.length > 3, 'the opening is in the corpus');
  const shown = (await tableRows('#continuations')).filter((r) => r[1] !== 'tenuki' && r[1] !== 'pass');
  assert.deepEqual(shown.map((r) => r.slice(1, 5)), want.continuations.map((c) => [c.move, String(c.count), String(c.black_wins), String(c.white_wins)]));
  assert.match(await page.textContent('#summary'), new RegExp(`^${want.games} games, ${want.occurrences} occurrences`));
  // Every continuation is drawn on the board with its count.
  const marks = await page.$$eval('#board g.mark', (gs) => gs.map((g) => [g.dataset.point, g.textContent]));
  for (const c of want.continuations.filter((c) => c.move !== 'pass')) {
    assert.ok(marks.some(([p, t]) => p === c.move && t.startsWith(String(c.count))), `mark for ${c.move}`);
  }
  // Clicking a continuation plays it and searches again.
  const first = want.continuations[0];
  await page.click('#continuations tbody tr.continuation >> nth=0');
  await settle();
  assert.match(await page.textContent('#to-play'), /move 4/);
  put(first.move, 'O');
  const next = cliJson(['pos', 'lookup', db, '--board', rows.map((r) => r.join('')).join(''), '--to-play', 'B', '--json']);
  assert.match(await page.textContent('#summary'), new RegExp(`^${next.games} games`));
  await shot('03-continuation-played');
  await page.click('#undo');
  await settle();
  assert.match(await page.textContent('#to-play'), /move 3/);
});

test('a corner selected by dragging gives the answer of kifu pos search', async () => {
  await page.check('input[name=mode][value=select]');
  // The lower-left 7x7 corner, around White's D4.
  const a = await pointXY('#board', 'A7');
  const b = await pointXY('#board', 'G1');
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 3 });
  await page.mouse.move(b.x, b.y, { steps: 3 });
  await page.mouse.up();
  // One point of the corner made a wildcard by clicking it.
  const w = await pointXY('#board', 'G7');
  await page.mouse.click(w.x, w.y);
  const rows = (await page.textContent('#pattern-rows')).trim();
  assert.equal(rows.split('\n').length, 7);
  assert.equal(rows.split('\n')[0], '......*');
  assert.equal(rows.split('\n')[3], '...O...');
  await page.click('#search-pattern');
  await settle();
  await shot('04-corner-pattern');
  const want = cliJson(['pos', 'search', db, '--pattern', rows.split('\n').join('/'), '--at', 'A7', '--json', '--limit', '50']);
  assert.ok(want.games > 10);
  assert.match(await page.textContent('#summary'), new RegExp(`^${want.games} games, ${want.occurrences} occurrences`));
  const shown = (await tableRows('#continuations')).filter((r) => r[1] !== 'tenuki' && r[1] !== 'pass');
  assert.deepEqual(
    shown.map((r) => [r[1], r[2], r[3], r[4]]),
    want.continuations.map((c) => [`${c.label || ''} ${c.color} ${c.move}`, String(c.count), String(c.black_wins), String(c.white_wins)]),
  );
  const tenuki = (await tableRows('#continuations')).find((r) => r[1] === 'tenuki');
  assert.equal(tenuki[2], String(want.tenuki.count));
  // Hits per year drawn, one bar a year.
  assert.equal(await page.locator('#years rect.year').count(), want.by_year.length);
  // The games listed are the answer's first page.
  const games = await tableRows('#games');
  assert.deepEqual(games.map((g) => [g[0], g[5]]), want.matches.map((m) => [String(m.game), String(m.move)]));
  // The URL holds the query: opening it again shows the same answer.
  const url = page.url();
  const again = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await again.goto(url);
  await again.waitForFunction(() => !document.body.dataset.busy && document.querySelector('#summary').textContent !== '');
  assert.equal(await again.textContent('#summary'), await page.textContent('#summary'));
  assert.equal((await again.textContent('#pattern-rows')).trim(), rows);
  await again.close();
});

test('a game opened from the list shows the matched move and steps with the keys', async () => {
  const games = await tableRows('#games');
  const [id, , , , , move] = games[0];
  await page.click('#games tbody tr >> nth=0');
  await settle();
  await page.waitForSelector('#viewer:not([hidden])');
  await shot('05-game-viewer');
  assert.match(await page.textContent('#v-move'), new RegExp(`^Move ${move}:`));
  // The board shown is the game's position after that move, as kifu show prints it.
  const info = await (await fetch(`${base}api/db/0/games/${id}`)).json();
  const shownRows = await page.evaluate(() => viewer.game.nodes[viewer.at].rows);
  const want = cli(['show', info.file, '--game', String(info.game_in_file), '--move', move, '--format', 'rows']).trim().split('\n');
  assert.deepEqual(shownRows, want);
  const stones = want.join('').split('').filter((c) => c !== '.').length;
  assert.equal(await page.locator('#viewer-board circle.stone').count(), stones);
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#v-move'), new RegExp(`^Move ${Number(move) + 1}:`));
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.match(await page.textContent('#v-move'), new RegExp(`^(Move ${Number(move) - 1}|Start)`));
  await page.click('#v-match');
  assert.match(await page.textContent('#v-move'), new RegExp(`^Move ${move}:`));
  await page.keyboard.press('Escape');
  assert.ok(await page.locator('#viewer').isHidden());
});

test('filters alone list the games kifu pos search gives for the same filters', async () => {
  await page.fill('#f-date-from', '2017');
  await page.fill('#f-date-to', '2017');
  await page.click('#filter-games');
  await settle();
  await shot('05b-filters-alone');
  const want = cliJson(['pos', 'search', db, '--date-from', '2017', '--date-to', '2017', '--json', '--limit', '50']);
  assert.ok(want.games > 50, 'more than one page of games from 2017');
  assert.equal(await page.textContent('#summary-title'), 'Filters alone · corpus.kpx');
  assert.match(await page.textContent('#summary'), new RegExp(`^${want.games} of ${want.games_searched} games pass the filters · Black won ${want.results.black_wins} `));
  assert.ok(await page.locator('#continuations').isHidden(), 'no continuations without a position');
  assert.equal(await page.locator('#years rect.year').count(), want.by_year.length);
  const games = await tableRows('#games');
  assert.deepEqual(games.map((g) => [g[0], g[1], g[2], g[3], g[4], g[5]]), want.matches.map((m) => [String(m.game), m.black, m.white, m.date, m.result, '']));
  // The next page is the command line's --offset 50.
  await page.click('#next-page');
  await settle();
  const next = cliJson(['pos', 'search', db, '--date-from', '2017', '--date-to', '2017', '--json', '--limit', '50', '--offset', '50']);
  assert.deepEqual((await tableRows('#games')).map((g) => g[0]), next.matches.map((m) => String(m.game)));
  assert.match(await page.textContent('#page-info'), new RegExp(`^51–${50 + next.matches.length} of ${want.games}`));
  // The URL holds the filters and the page.
  const again = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await again.goto(page.url());
  await again.waitForFunction(() => !document.body.dataset.busy && document.querySelector('#summary').textContent !== '');
  assert.equal(await again.textContent('#summary'), await page.textContent('#summary'));
  assert.equal(await again.textContent('#page-info'), await page.textContent('#page-info'));
  await again.close();
  // Playing a move asks about the position again.
  await page.fill('#f-date-from', '');
  await page.fill('#f-date-to', '');
  await page.check('input[name=mode][value=play]');
  await clickPoint('K10');
  assert.match(await page.textContent('#summary-title'), /^Full board/);
  assert.match(await page.textContent('#summary'), /^\d+ games, \d+ occurrences/);
  await page.click('#undo');
  await settle();
});

test('following two moves in the books shows what kifu book dump prints', async () => {
  await page.click('#tab-book');
  await settle();
  await shot('06-books-start');
  const line = [];
  for (let k = 0; k < 2; k++) {
    const uci = await page.textContent('.book:nth-child(1) tbody tr:nth-child(1) td:nth-child(2)');
    line.push(uci);
    await page.click('.book:nth-child(1) tbody tr:nth-child(1)');
    await settle();
  }
  await shot('07-books-two-moves');
  assert.equal(await page.textContent('#book-line'), line.join(' '));
  for (const [k, file] of books.entries()) {
    const want = cliJson(['book', 'dump', file, '--moves', line.join(' '), '--json']);
    const shown = await tableRows(`.book:nth-child(${k + 1})`);
    assert.deepEqual(shown, want.entries.map((e) => [e.san ?? '?', e.uci ?? e.raw, String(e.weight), `${e.share.toFixed(2)}%`, String(e.learn)]));
    assert.equal(await page.textContent('#book-fen'), want.fen);
  }
  await page.click('#book-back');
  await settle();
  assert.equal(await page.textContent('#book-line'), line[0]);
  await page.click('#book-forward');
  await settle();
  assert.equal(await page.textContent('#book-line'), line.join(' '));
});

test('bad queries show an error, not a blank page', async () => {
  await page.fill('#fen', 'not a fen');
  await page.click('#book-go');
  await settle();
  assert.ok(await page.locator('#error').isVisible());
  assert.match(await page.textContent('#error'), /invalid FEN.*\(in fen\)/);
  assert.equal(await page.locator('#chess-board div').count(), 64, 'the board is still there');
  await shot('08-bad-fen');
  await page.click('#tab-go');
  await settle();
  await page.check('input[name=mode][value=select]');
  const a = await pointXY('#board', 'A19');
  const b = await pointXY('#board', 'E15');
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 4 });
  await page.mouse.up();
  await page.fill('#opt-from', '60');
  await page.fill('#opt-to', '10');
  await page.click('#search-pattern');
  await settle();
  assert.ok(await page.locator('#error').isVisible());
  assert.match(await page.textContent('#error'), /window ends before it starts.*\(in query\.moves\)/);
  assert.equal(await page.locator('#board line').count(), 38, 'the board is still drawn');
  await shot('09-bad-move-window');
  // An API call with a malformed body answers 400 with the field named.
  const res = await fetch(`${base}api/db/0/search`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"query": {"pattern": "#.", "placement": {"kind": "diagonal"}}}' });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).field, 'query.placement.kind');
});
