// The planner's answer from hand-made figures: seeds aggregated on the worst seed and cost as
// the mean per hour, the cheapest setting meeting every SLO within the budget, the cost
// frontier per SLO, the settings just cheaper explained (queue wait, cold starts, execution),
// and what would be needed when none meets.
import { describe, expect, it } from 'vitest';
import { answer, explainMiss, frontiers, settingDiff } from '../../../src/plan/choose.js';
import { evaluatePoint } from '../../../src/plan/evaluate.js';
import type { GridAxes } from '../../../src/plan/grid.js';
import { parseSlo, type Slo } from '../../../src/plan/slo.js';
import type { ScalingSettings } from '../../../src/sim/types.js';
import { figures, type FigureParts } from './figures.js';

const slo = (t: string): Slo => parseSlo(t) as Slo;
const P99 = slo('p99(e2e)<8s');
const COLD = slo('cold(share)<5%');
const setting = (workersMax: number, more: Partial<ScalingSettings> = {}): ScalingSettings => ({ workersMin: 0, workersMax, idleTimeoutS: 5, scalerType: 'QUEUE_DELAY', scalerValue: 4, ...more });
const point = (s: ScalingSettings, runs: FigureParts[], slos: Slo[] = [P99], budget?: number) => evaluatePoint(s, runs.map((r) => figures(r)), slos, budget);
const twin = { coldStartHighMs: 40_000 };
const axes: GridAxes = { workersMin: [0], workersMax: [1, 2, 3, 4, 5], idleTimeoutS: [5], scalerType: ['QUEUE_DELAY'], scalerValue: { QUEUE_DELAY: [4], REQUEST_COUNT: [] } };

describe('evaluatePoint', () => {
  it('judges each SLO on the worst seed and prices the mean hour, split active/flex/idle', () => {
    const p = point(setting(3), [
      { e2eP99Ms: 7_000, costUsd: 2, activeUsd: 0.5, idleUsd: 0.2, coldStarts: 10, coldStartJobShare: 0.01 },
      // half an hour simulated: its cost per hour is twice its cost
      { e2eP99Ms: 9_000, costUsd: 2, activeUsd: 0.5, idleUsd: 0.4, coldStarts: 10, coldStartJobShare: 0.03, simulatedMs: 1_800_000 },
    ], [P99, COLD]);
    expect(p.sloFigures).toEqual([9_000, 0.03]);
    expect(p.meets).toEqual([false, true]);
    const c = p.costPerHourUsd;
    expect([c.total, c.active, c.flex, c.idle].map((x) => Math.round(x * 1e9) / 1e9)).toEqual([3, 0.75, 2.25, 0.5]);
    expect(p.coldStartsPerHour).toBe(15);
    expect(p.e2e.p99Ms).toBe(9_000);
    expect(p.withinBudget).toBe(true);
  });

  it('counts jobs that did not complete against a latency quantile: more than its tail and it has no figure', () => {
    expect(point(setting(3), [{ e2eP99Ms: 100, arrived: 1_000, notCompleted: 10 }]).sloFigures).toEqual([null]);
    expect(point(setting(3), [{ e2eP99Ms: 100, arrived: 1_000, notCompleted: 9 }]).sloFigures).toEqual([100]);
    expect(point(setting(3), [{ e2eP99Ms: null, delayP99Ms: null, arrived: 0 }]).meets).toEqual([false]);
  });

  it('a budget leaves out a setting above it', () => {
    expect(point(setting(3), [{ costUsd: 2 }], [P99], 1.5).withinBudget).toBe(false);
    expect(point(setting(3), [{ costUsd: 1.5 }], [P99], 1.5).withinBudget).toBe(true);
  });
});

describe('answer', () => {
  // More max workers: dearer, shorter queues.
  const ladder = [
    point(setting(1), [{ e2eP99Ms: 20_000, delayP99Ms: 15_000, costUsd: 1 }]),
    point(setting(2), [{ e2eP99Ms: 12_000, delayP99Ms: 7_000, costUsd: 2 }]),
    point(setting(3), [{ e2eP99Ms: 9_000, delayP99Ms: 4_000, costUsd: 3 }]),
    point(setting(4), [{ e2eP99Ms: 6_000, delayP99Ms: 1_000, costUsd: 4 }]),
    point(setting(5), [{ e2eP99Ms: 5_500, delayP99Ms: 500, costUsd: 5 }]),
  ];

  it('chooses the cheapest setting that meets the SLO and explains the three just cheaper, nearest first', () => {
    const a = answer(ladder, [P99], axes, undefined, twin);
    expect(a.chosen).toBe(3);
    expect(a.needed).toEqual([]);
    expect(a.nearMisses.map((m) => m.point)).toEqual([2, 1, 0]);
    const first = a.nearMisses[0];
    expect(first?.differs).toBe('workersMax 3 (chosen 4)');
    expect(first?.misses).toEqual([expect.objectContaining({ slo: 0, observed: 9_000, threshold: 8_000, overBy: 1_000, cause: 'queue-wait' })]);
    expect(first?.misses[0]?.explanation).toBe('1,000 ms over: jobs waited in the queue for busy workers (delay p99 4,000 ms, 0% met a cold start, within the 1.00% p99 leaves out)');
  });

  it('explains one setting per distinct outcome, those within reach of the SLO first, and only then one overloaded setting', () => {
    const pts = [
      point(setting(1, { idleTimeoutS: 300 }), [{ e2eP99Ms: 6_000_000, costUsd: 9 }]),
      point(setting(1, { idleTimeoutS: 60 }), [{ e2eP99Ms: 6_000_000, costUsd: 8.5 }]),
      point(setting(1, { idleTimeoutS: 45 }), [{ e2eP99Ms: 6_000_000, costUsd: 8 }]),
      point(setting(2, { idleTimeoutS: 30 }), [{ e2eP99Ms: 9_500, costUsd: 5 }]),
      point(setting(2, { idleTimeoutS: 5 }), [{ e2eP99Ms: 9_500, costUsd: 4 }]),
      point(setting(2, { idleTimeoutS: 1 }), [{ e2eP99Ms: 15_000, costUsd: 3 }]),
      point(setting(4), [{ e2eP99Ms: 6_000, costUsd: 10 }]),
    ];
    const a = answer(pts, [P99], axes, undefined, twin);
    expect(a.chosen).toBe(6);
    // 9,500 ms (the cheaper of two settings giving it), 15,000 ms (within twice the SLO), then
    // the three identical overloaded settings as one, the nearest the chosen cost.
    expect(a.nearMisses.map((m) => m.point)).toEqual([4, 5, 0]);
  });

  it('the frontier keeps the points no cheaper one beats on the figure', () => {
    const flat = [...ladder, point(setting(5, { idleTimeoutS: 60 }), [{ e2eP99Ms: 7_000, costUsd: 6 }])];
    expect(frontiers(flat, [P99])).toEqual([[0, 1, 2, 3, 4]]);
  });

  it('with a budget below every setting that meets: none chosen, and the cheapest that meets is named', () => {
    const budgeted = ladder.map((p) => ({ ...p, withinBudget: p.costPerHourUsd.total <= 3.5 }));
    const a = answer(budgeted, [P99], axes, 3.5, twin);
    expect(a.chosen).toBeNull();
    expect(a.needed).toEqual([expect.stringMatching(/^2 setting\(s\) meet every SLO but cost more than the budget of \$3\.500\/h: the cheapest costs \$4\.000\/h \(workers 0\.\.4/)]);
  });

  it('none meets because of queue wait at the account cap: more max workers than the cap would be needed', () => {
    const a = answer(ladder.slice(0, 3), [P99], axes, undefined, twin);
    expect(a.chosen).toBeNull();
    expect(a.needed).toEqual([
      expect.stringMatching(/^every setting up to workersMax 5 misses p99\(e2e\)<8s; the best reached 9,000 ms \(workers 0\.\.3.*\); jobs wait for busy workers: more max workers than the account's default cap \(5; up to 60 with a higher balance\) would be needed/),
    ]);
  });

  it('none meets because execution alone exceeds the SLO: no scaling setting helps', () => {
    const slow = [point(setting(5), [{ e2eP99Ms: 9_500, delayP99Ms: 200 }])];
    expect(answer(slow, [P99], axes, undefined, twin).needed[0]).toMatch(/delay p99 of only 200 ms: the handler's execution time and the service's overhead make up the rest.*a faster handler or GPU would be needed/);
  });

  it('none meets because of cold starts: more active workers or a longer idle timeout', () => {
    const cold = [point(setting(5), [{ e2eP99Ms: 30_000, delayP99Ms: 25_000, coldStartJobShare: 0.04 }])];
    expect(answer(cold, [P99], axes, undefined, twin).needed[0]).toMatch(/jobs wait for starting workers: more active workers than 0 \(--workers-min\) or an idle timeout longer than 5 s/);
  });

  it('each SLO met alone but never together', () => {
    const split = [point(setting(1), [{ e2eP99Ms: 1_000, coldStartJobShare: 0.5 }], [P99, COLD]), point(setting(2), [{ e2eP99Ms: 9_000, coldStartJobShare: 0 }], [P99, COLD])];
    expect(answer(split, [P99, COLD], axes, undefined, twin).needed).toEqual([expect.stringMatching(/no setting meets them all together/)]);
  });
});

describe('explainMiss', () => {
  it('puts a p99 miss down to cold starts when more jobs met one than the 1% tail', () => {
    const p = point(setting(2), [{ e2eP99Ms: 30_000, delayP99Ms: 25_000, coldStartJobShare: 0.02 }]);
    expect(explainMiss(p, 0, P99, twin)).toMatchObject({ cause: 'cold-starts', overBy: 22_000 });
    expect(explainMiss(p, 0, P99, twin).explanation).toMatch(/^22\.0 s over: 2\.00% of jobs waited for a starting worker, more than the 1\.00% p99 leaves out/);
  });

  it('puts it down to queue wait when the tail waited longer than a long start, however many jobs met one', () => {
    const p = point(setting(3), [{ e2eP99Ms: 90_000, delayP99Ms: 88_000, coldStartJobShare: 0.04 }]);
    expect(explainMiss(p, 0, P99, twin)).toMatchObject({ cause: 'queue-wait', overBy: 82_000 });
    expect(explainMiss(p, 0, P99, twin).explanation).toMatch(/delay p99 88\.0 s, longer than a long start of 40\.0 s\)/);
  });

  it('explains a cold-share miss by the active workers and idle timeout', () => {
    const p = point(setting(2, { idleTimeoutS: 15 }), [{ coldStartJobShare: 0.2, coldStarts: 30 }], [COLD]);
    expect(explainMiss(p, 0, COLD, twin)).toMatchObject({ cause: 'cold-starts', observed: 0.2, threshold: 0.05 });
    expect(explainMiss(p, 0, COLD, twin).explanation).toMatch(/20\.0% of jobs met a cold start \(30\.0 cold starts\/h\): no worker is kept up \(workersMin 0\), and idle workers stop after 15 s/);
  });

  it('names what differs from the chosen setting', () => {
    expect(settingDiff(setting(2, { idleTimeoutS: 60, scalerType: 'REQUEST_COUNT', scalerValue: 2 }), setting(2))).toBe('idle 60 s (chosen 5 s), REQUEST_COUNT 2 (chosen QUEUE_DELAY 4)');
  });
});
