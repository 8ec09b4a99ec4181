// The plan section in the result model and its renderers, from hand-made figures: it validates
// against the model's schema, a plan that meets its SLOs passes (exit 0) and one that does not
// fails (exit 1) with what would be needed, and console, markdown, HTML and JUnit show the chosen
// setting, its cost split, the near misses and a frontier chart per SLO.
import { describe, expect, it } from 'vitest';
import { answer } from '../../../src/plan/choose.js';
import { evaluatePoint } from '../../../src/plan/evaluate.js';
import type { GridAxes } from '../../../src/plan/grid.js';
import { parseSlo, type Slo } from '../../../src/plan/slo.js';
import { buildMeta } from '../../../src/result/machine.js';
import { QbenchResult, SCHEMA_VERSION, type PlanSection } from '../../../src/result/model.js';
import { computeOverall } from '../../../src/result/overall.js';
import { renderConsole } from '../../../src/report/render/console.js';
import { renderHtml } from '../../../src/report/render/html.js';
import { renderJunit } from '../../../src/report/render/junit.js';
import { renderMarkdown } from '../../../src/report/render/markdown.js';
import type { ScalingSettings } from '../../../src/sim/types.js';
import { figures } from './figures.js';

const slos = [parseSlo('p99(e2e)<8s') as Slo, parseSlo('cold(share)<5%') as Slo];
const axes: GridAxes = { workersMin: [0], workersMax: [1, 2, 3], idleTimeoutS: [5], scalerType: ['QUEUE_DELAY'], scalerValue: { QUEUE_DELAY: [4], REQUEST_COUNT: [] } };
const setting = (workersMax: number): ScalingSettings => ({ workersMin: 0, workersMax, idleTimeoutS: 5, scalerType: 'QUEUE_DELAY', scalerValue: 4 });

function planOf(p99s: number[]): PlanSection {
  const points = p99s.map((p99, i) => evaluatePoint(setting(i + 1), [figures({ e2eP99Ms: p99, delayP99Ms: p99 - 1_000, costUsd: i + 1, activeUsd: 0, idleUsd: 0.1, coldStarts: 4, coldStartJobShare: 0.002 })], slos, undefined));
  return {
    twin: { file: 'emulator.json', endpointId: 'demo', gpuTypeId: 'L4', gpuCount: 1, flexPerS: 0.00019, activePerS: 0.00013, priceSource: 'test', settings: 'workers 0..3', coldStartHighMs: 30_000 },
    traffic: { description: 'Poisson 2 jobs/s for 1h', durationMs: 3_600_000 },
    slos: slos.map((s) => ({ ...s })),
    aggregation: 'worst-seed',
    seeds: [1],
    grid: { workersMin: [0], workersMax: [1, 2, 3], idleTimeoutS: [5], scalerType: ['QUEUE_DELAY'], scalerValue: { QUEUE_DELAY: [4], REQUEST_COUNT: [] }, settings: 3, skippedInvalid: 0, skippedEquivalent: 0 },
    points,
    ...answer(points, slos, axes, undefined, { coldStartHighMs: 30_000 }),
    sweep: { simulations: 3, threads: 2, wallMs: 1_234, events: 9_999 },
  };
}

function resultOf(plan: PlanSection): QbenchResult {
  const t = new Date('2026-11-25T10:00:00Z');
  const partial = { schemaVersion: SCHEMA_VERSION, kind: 'qbench-result' as const, meta: buildMeta({ command: ['qbench', 'plan'], startedAt: t, endedAt: t, target: { kind: 'simulation', queueUrl: '/tmp/emulator.json', endpointId: 'demo', timeScale: 1 } }), plan };
  return QbenchResult.parse({ ...partial, overall: computeOverall(partial) });
}

describe('the plan section rendered', () => {
  const met = resultOf(planOf([20_000, 7_000, 5_000]));

  it('a met plan passes with the chosen setting, its cost split and the near miss', () => {
    expect(met.overall).toMatchObject({ status: 'pass', exitCode: 0 });
    const text = renderConsole(met);
    expect(text).toMatch(/Cheapest setting meeting every SLO:\n\s+setting\s+workers 0\.\.2, idle 5 s, QUEUE_DELAY 4 s\n\s+cost\s+\$2\.000\/h \(active \$0\.000\/h, flex \$2\.000\/h, of which idle \$0\.100\/h\)/);
    expect(text).toMatch(/\$1\.000\/h workers 0\.\.1, idle 5 s, QUEUE_DELAY 4 s \[workersMax 1 \(chosen 2\)\]: misses p99\(e2e\)<8s at 20\.0 s \(queue-wait/);
    const md = renderMarkdown(met);
    expect(md).toMatch(/\| cost \| \$2\.000\/h \(active/);
    expect(md).toMatch(/Cost frontier of `p99\(e2e\)<8s`/);
  });

  it('the HTML page holds a frontier chart per SLO, every setting, and the chosen one', () => {
    const html = renderHtml(met);
    expect(html).toMatch(/id="plan-frontier-0"/);
    expect(html).toMatch(/id="plan-frontier-1"/);
    expect(html).toMatch(/Every setting \(3\)/);
    const data = JSON.parse(/<script type="application\/json" id="qbench-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}') as { charts: Array<{ id: string; data: Array<Array<number | null>>; refs: Array<{ y: number }> }> };
    const chart = data.charts.find((c) => c.id === 'plan-frontier-0');
    // x: the three costs; every setting, the frontier, the chosen point; the SLO as a reference line
    expect(chart?.data[0]).toEqual([1, 2, 3]);
    expect(chart?.data[1]).toEqual([20_000, 7_000, 5_000]);
    expect(chart?.data[3]).toEqual([null, 7_000, null]);
    expect(chart?.refs).toEqual([{ label: 'p99(e2e)<8s', y: 8_000 }]);
  });

  it('a latency chart is on a log axis up to 20x the SLO: an overloaded setting sits on the top edge, counted in the note', () => {
    const html = renderHtml(resultOf(planOf([6_000_000, 7_000, 5_000])));
    const data = JSON.parse(/<script type="application\/json" id="qbench-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}') as { charts: Array<{ id: string; logY: boolean; note: string; data: Array<Array<number | null>> }> };
    const latency = data.charts.find((c) => c.id === 'plan-frontier-0')!;
    const share = data.charts.find((c) => c.id === 'plan-frontier-1')!;
    expect(latency.logY).toBe(true);
    expect(latency.data[1]).toEqual([160_000, 7_000, 5_000]);
    expect(latency.note).toMatch(/1 setting\(s\) above 20x the SLO \(up to 100 min 0 s\) are drawn on the top edge\./);
    expect(share.logY).toBe(false);
    expect(share.note).not.toMatch(/top edge/);
  });

  it('a plan that nothing meets fails with exit 1 and says what would be needed', () => {
    const missed = resultOf(planOf([20_000, 15_000, 12_000]));
    expect(missed.plan?.chosen).toBeNull();
    expect(missed.overall.status).toBe('fail');
    expect(missed.overall.exitCode).toBe(1);
    expect(missed.overall.reasons).toEqual([expect.stringMatching(/^plan: every setting up to workersMax 3 misses p99\(e2e\)<8s; the best reached 12\.0 s .*more max workers than 3 would be needed/)]);
    expect(renderConsole(missed)).toMatch(/no setting of 3 meets p99\(e2e\)<8s and cold\(share\)<5%:/);
    // JUnit: one case per SLO; the missed one fails with what would be needed
    const junit = renderJunit(missed);
    expect(junit).toMatch(/<testcase name="p99\(e2e\)&lt;8s" classname="qbench\.plan\.slo"[^>]*>\s*<failure message="no setting of 3 meets/);
    expect(junit).toMatch(/more max workers than 3 would be needed/);
    expect(renderJunit(met)).not.toMatch(/<failure/);
  });
});
