// The explorer's first paint from a cold start of `kifu serve`: the time from starting the
// server process to the page's first contentful paint in Chromium, and from navigation alone.
// usage: node bench/serve_paint.mjs KIFU DB   (run by bench/serve.sh)
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../tests/browser/package.json'));
const { chromium } = require('playwright-core');
const [kifu, db] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const runs = [];
for (let i = 0; i < 5; i++) {
  const page = await browser.newPage();
  const started = performance.now();
  const server = spawn(kifu, ['serve', db, '--bind', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve) => {
    let err = '';
    server.stderr.on('data', (d) => { err += d; const m = /serving on (\S+)/.exec(err); if (m) resolve(m[1]); });
  });
  const listening = performance.now() - started;
  const nav = performance.now();
  await page.goto(url);
  const fcp = await page.evaluate(() => new Promise((resolve) => {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.name === 'first-contentful-paint') resolve(e.startTime); })
      .observe({ type: 'paint', buffered: true });
  }));
  await page.waitForFunction(() => !document.body.dataset.busy && document.querySelector('#board line'));
  const ready = performance.now() - started;
  runs.push({ listening, fcp, total: nav - started + fcp, ready });
  server.kill('SIGINT');
  await page.close();
}
await browser.close();
const med = (k) => runs.map((r) => r[k]).sort((a, b) => a - b)[2].toFixed(0);
console.log(`first paint (median of 5 cold starts): server listening ${med('listening')} ms, first contentful paint ${med('fcp')} ms after navigation, ${med('total')} ms from the server's start; board and first lookup shown ${med('ready')} ms from the server's start`);
