// Browser check of the HTML report: render a report, open it in headless Chromium
// (Debian's chromium, driven by playwright-core), and check there are no console errors, no
// network requests besides the file itself, and that every chart canvas drew its data series.
// A screenshot goes to test-output/. Skips with a clear message where Chromium is missing.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderComparisonHtml, renderHtml } from '../../src/report/render/html.js';
import { PALETTE } from '../../src/report/render/html-charts.js';
import { compareResults } from '../../src/report/compare.js';
import type { QbenchResult } from '../../src/result/model.js';
import { browserTestResult } from './browser-result.js';
import { renderCalibrationHtml } from '../../src/calibrate/report-html.js';
import { calibrateFake, fakeDeployment } from '../unit/calibrate/fake-deployment.js';
import { runPlan } from '../../src/plan/run-plan.js';
import { parseSlo, type Slo } from '../../src/plan/slo.js';
import { parseTwin, trafficFromFlags } from '../../src/sim/index.js';
import { buildMeta } from '../../src/result/machine.js';
import { computeOverall } from '../../src/result/overall.js';
import { SCHEMA_VERSION } from '../../src/result/model.js';
import { llmRun, llmSection } from '../unit/report/llm-sample.js';

const CHROMIUM = process.env['QBENCH_CHROMIUM'] ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (install Debian's chromium: apt-get install -y chromium, or set QBENCH_CHROMIUM)`);
}

const OUT_DIR = path.resolve('test-output/browser');

let browser: BrowserContext | undefined;
let profileDir = '';
let realRun: Promise<QbenchResult> | undefined;
/** One real emulator run shared by both tests. */
const result = () => (realRun ??= browserTestResult());

beforeAll(async () => {
  if (!haveChromium) return;
  profileDir = await mkdtemp(path.join(tmpdir(), 'qbench-chromium-'));
  browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
});

interface PageCheck {
  consoleErrors: string[];
  requests: string[];
  charts: Array<{ id: string; drawn: string | null; seriesPixels: number }>;
  /** After clicking a conformance-matrix section link: whether its folded section opened (null: no such link). */
  unfolded: boolean | null;
}

/**
 * Runs in the page (a string: the project's TypeScript has no DOM types): per chart, whether it
 * was drawn and how many canvas pixels carry one of the series colours.
 */
const PIXEL_PROBE = String.raw`(pal) => Array.from(document.querySelectorAll('.chart')).map((el) => {
  const canvas = el.querySelector('canvas');
  let seriesPixels = 0;
  if (canvas) {
    const img = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 0; i < img.length; i += 4) {
      if (img[i + 3] < 200) continue;
      const r = img[i], g = img[i + 1], b = img[i + 2];
      if (pal.some((p) => Math.abs(r - p[0]) + Math.abs(g - p[1]) + Math.abs(b - p[2]) < 24)) seriesPixels++;
    }
  }
  return { id: el.id, drawn: el.getAttribute('data-drawn'), seriesPixels };
})`;

/** Open a report file, collect console errors and requests, and count series-coloured pixels per chart. */
async function openReport(file: string, screenshot: string): Promise<PageCheck> {
  const page = await browser!.newPage();
  try {
    const consoleErrors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => requests.push(r.url()));
    const url = pathToFileURL(file).href;
    await page.goto(url, { waitUntil: 'load', timeout: 20_000 });
    await page.waitForFunction('window.__qbenchChartsDrawn !== undefined', undefined, { timeout: 10_000 });
    const palette = PALETTE.map((hex) => [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16)]);
    const charts = await page.evaluate<PageCheck['charts']>(`(${PIXEL_PROBE})(${JSON.stringify(palette)})`);
    // a section link of the conformance matrix unfolds the folded list of checks it points into
    const link = await page.$('a[href^="#sec-"]');
    let unfolded: boolean | null = null;
    if (link) {
      const target = (await link.getAttribute('href'))!.slice(1);
      await link.click();
      unfolded = await page.evaluate<boolean>(`document.getElementById(${JSON.stringify(target)}).closest('details').open`);
    }
    await mkdir(OUT_DIR, { recursive: true });
    await page.screenshot({ path: path.join(OUT_DIR, screenshot), fullPage: true });
    return { consoleErrors, requests: requests.filter((r) => r !== url), charts, unfolded };
  } finally {
    await page.close();
  }
}

describe.skipIf(!haveChromium)('HTML report in headless Chromium', () => {
  it('renders a run with no console errors, no network requests, and data drawn in every chart', async () => {
    const r = await result();
    await mkdir(OUT_DIR, { recursive: true });
    const file = path.join(OUT_DIR, 'report.html');
    await writeFile(file, renderHtml(r));
    const check = await openReport(file, 'report.png');
    expect(check.consoleErrors).toEqual([]);
    expect(check.requests).toEqual([]);
    // spectrum, percentiles over time and throughput for each scenario, plus the scenario's own charts
    const expected = (r.load?.scenarios ?? []).reduce((a, s) => a + 3 + s.charts.filter((c) => c.series.some((x) => x.points.length > 0)).length, 0);
    expect(check.charts.length).toBe(expected);
    expect(check.unfolded).toBe(true);
    for (const c of check.charts) {
      expect(c.drawn, `chart ${c.id} drawn`).toBe('true');
      // a few hundred pixels of series colour: a drawn line, not only axes and grid
      expect(c.seriesPixels, `chart ${c.id} has data pixels`).toBeGreaterThan(150);
    }
  }, 60_000);

  it('renders a comparison page cleanly', async () => {
    const base = await result();
    const cmp = compareResults(base, base, { baselineFile: 'a.json', candidateFile: 'a.json', iterations: 200 });
    const file = path.join(OUT_DIR, 'comparison.html');
    await writeFile(file, renderComparisonHtml(cmp));
    const check = await openReport(file, 'comparison.png');
    expect(check.consoleErrors).toEqual([]);
    expect(check.requests).toEqual([]);
  }, 60_000);

  it('renders a plan: a cost frontier chart per SLO with every setting, the frontier and the chosen point drawn, no requests', async () => {
    const twin = parseTwin({ endpoints: ['p'], deployments: { p: { gpuTypeId: 'L4', timing: { coldStart: { kind: 'constant', ms: 3_000 }, execution: { kind: 'lognormal', medianMs: 800, sigma: 0.3 } } } } });
    const plan = await runPlan({
      twinFile: 'emulator.json',
      twin,
      traffic: trafficFromFlags({ ratePerSec: 1, durationMs: 300_000 }),
      slos: [parseSlo('p99(e2e)<20s') as Slo, parseSlo('cold(share)<10%') as Slo],
      axes: { workersMin: [0, 1], workersMax: [1, 2, 3], idleTimeoutS: [5, 60], scalerType: ['QUEUE_DELAY'], scalerValue: [2] },
      seeds: 1,
      threads: 1,
    });
    const started = new Date();
    const partial = { schemaVersion: SCHEMA_VERSION, kind: 'qbench-result' as const, meta: buildMeta({ command: ['qbench', 'plan'], startedAt: started, endedAt: started, target: { kind: 'simulation', queueUrl: 'emulator.json', endpointId: 'p', timeScale: 1 } }), plan };
    const file = path.join(OUT_DIR, 'plan.html');
    await mkdir(OUT_DIR, { recursive: true });
    await writeFile(file, renderHtml({ ...partial, overall: computeOverall(partial) }));
    const check = await openReport(file, 'plan.png');
    expect(check.consoleErrors).toEqual([]);
    expect(check.requests).toEqual([]);
    expect(plan.chosen).not.toBeNull();
    expect(check.charts.map((c) => c.id)).toEqual(['plan-frontier-0', 'plan-frontier-1']);
    for (const c of check.charts) {
      expect(c.drawn, `chart ${c.id} drawn`).toBe('true');
      expect(c.seriesPixels, `chart ${c.id} has data pixels`).toBeGreaterThan(150);
    }
  }, 60_000);

  it('renders the LLM section: TTFT and ITL against rate and concurrency, tokens/s, goodput, cold vs warm, engine metrics, every one drawn', async () => {
    const runs = [
      ...['openai', 'stream'].flatMap((p, k) => [
        llmRun({ kind: 'concurrency', concurrency: 1 }, 'sweep-serial', [100 + k * 20, 110, 105], p as 'openai' | 'stream'),
        llmRun({ kind: 'concurrency', concurrency: 8 }, 'sweep-saturation', [400 + k * 20, 450, 500], p as 'openai' | 'stream'),
        ...[2, 3, 4].map((rate) => llmRun({ kind: 'rate', ratePerSec: rate, arrivals: 'uniform' }, 'sweep-rate', [100 * rate + k * 20, 110 * rate, 120 * rate], p as 'openai' | 'stream')),
      ]),
    ];
    const started = new Date();
    const partial = { schemaVersion: SCHEMA_VERSION, kind: 'qbench-result' as const, meta: buildMeta({ command: ['qbench', 'llm'], startedAt: started, endedAt: started, target: { kind: 'emulator', queueUrl: 'http://127.0.0.1:1', endpointId: 'demo', timeScale: 1 } }), llm: llmSection(runs, [{ path: 'openai', maxRatePerSec: 2, saturationRatePerSec: 5 }, { path: 'stream', maxRatePerSec: 2, saturationRatePerSec: 5 }]) };
    const file = path.join(OUT_DIR, 'llm.html');
    await mkdir(OUT_DIR, { recursive: true });
    await writeFile(file, renderHtml({ ...partial, overall: computeOverall(partial) }));
    const check = await openReport(file, 'llm.png');
    expect(check.consoleErrors).toEqual([]);
    expect(check.requests).toEqual([]);
    const ids = check.charts.map((c) => c.id);
    // Engine metrics at each path's saturating level (runs 1 and 6).
    expect(ids).toEqual(expect.arrayContaining(['llm-ttft-rate', 'llm-itl-rate', 'llm-ttft-concurrency', 'llm-itl-concurrency', 'llm-tokens-concurrency', 'llm-goodput-rate', 'llm-cold-warm', 'llm-engine-1', 'llm-engine-6']));
    expect(ids.filter((id) => id.startsWith('llm-engine-'))).toHaveLength(2);
    for (const c of check.charts) {
      expect(c.drawn, `chart ${c.id} drawn`).toBe('true');
      // The cold-warm chart is markers only: fewer pixels than a line.
      expect(c.seriesPixels, `chart ${c.id} has data pixels`).toBeGreaterThan(c.id === 'llm-cold-warm' ? 20 : 150);
    }
  }, 60_000);

  it('renders a calibration report: every fit drawn over its samples, the burst timeline, no requests', async () => {
    const plan = { classes: 1, warmJobs: 30, coldStarts: 8, coldBatch: 2, burstJobs: 6, streamJobs: 0, maxJobs: 44, maxDurationMs: 30_000, totalJobs: 44 };
    const report = await calibrateFake(fakeDeployment(2, 3, 5), plan, { gpuTypeId: 'L4' });
    const file = path.join(OUT_DIR, 'calibration.html');
    await mkdir(OUT_DIR, { recursive: true });
    await writeFile(file, renderCalibrationHtml(report));
    const check = await openReport(file, 'calibration.png');
    expect(check.consoleErrors).toEqual([]);
    expect(check.requests).toEqual([]);
    expect(report.fits.map((f) => f.part)).toEqual(expect.arrayContaining(['dispatch', 'execution', 'coldStart']));
    expect(check.charts.length).toBe(report.fits.length + 1);
    for (const c of check.charts) {
      expect(c.drawn, `chart ${c.id} drawn`).toBe('true');
      expect(c.seriesPixels, `chart ${c.id} has data pixels`).toBeGreaterThan(150);
    }
  }, 60_000);
});
