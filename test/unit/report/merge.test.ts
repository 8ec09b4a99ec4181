// merge: shards of the same scenario combine losslessly (the same percentiles as one run over the
// union of samples), counts sum, series align on wall-clock seconds, thresholds are re-evaluated.
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../src/exit-codes.js';
import { histogramFromMs, percentilesOf, summarize } from '../../../src/result/histogram.js';
import { mergeResults } from '../../../src/report/merge.js';
import { QbenchResult } from '../../../src/result/model.js';
import { seededRng } from '../../../src/report/random.js';
import { drawLatencies, sampleResult } from '../result/sample-result.js';

/** A shard whose steady-run/run step holds exactly `samples` (and a count-based threshold). */
function shard(seed: number, samples: number[], startedAt: string, label: string): QbenchResult {
  const r = sampleResult({ seed, samples: 1_000, startedAt, shard: label });
  const s = r.load!.scenarios[0]!;
  const run = s.steps[0]!;
  run.latency = summarize(histogramFromMs(samples));
  run.serviceTime = summarize(histogramFromMs(samples.map((v) => v * 0.8)));
  run.counts = { '2xx': samples.length, '429': 0, '4xx': 0, '5xx': 0, network_error: 0 };
  run.statusCodes = { '200': samples.length };
  delete run.byOutcome;
  s.thresholds = [
    { metric: 'run.reqs', expression: `count<${Math.round(samples.length * 1.5)}`, observed: samples.length, passed: true, abortOnFail: false },
    { metric: 'run.latency', expression: 'p(99)<100000', observed: 1, passed: true, abortOnFail: false },
    { metric: 'iterations', expression: 'count>0', observed: samples.length, passed: true, abortOnFail: false },
  ];
  return QbenchResult.parse(r);
}

describe('mergeResults', () => {
  const a = drawLatencies(seededRng(101), 3_000);
  const b = drawLatencies(seededRng(202), 2_000, 1.2);
  const shardA = shard(1, a, '2026-11-22T10:00:00.000Z', 'gen-a');
  const shardB = shard(2, b, '2026-11-22T10:00:02.000Z', 'gen-b');
  const merged = mergeResults([
    { result: shardA, source: 'a.json' },
    { result: shardB, source: 'b.json' },
  ]);
  const scenario = merged.load!.scenarios.find((s) => s.name === 'steady-run')!;

  it('gives the same percentiles as one run over the union of the shards\' samples', () => {
    const run = scenario.steps.find((s) => s.step === 'run')!;
    expect(run.latency.percentiles).toEqual(percentilesOf(histogramFromMs([...a, ...b])));
    expect(run.serviceTime.percentiles).toEqual(percentilesOf(histogramFromMs([...a, ...b].map((v) => v * 0.8))));
    expect(run.counts['2xx']).toBe(a.length + b.length);
    expect(run.statusCodes['200']).toBe(a.length + b.length);
  });

  it('sums the other steps\' counts and marks the shard count', () => {
    const status = scenario.steps.find((s) => s.step === 'status')!;
    const sA = shardA.load!.scenarios[0]!.steps[1]!;
    const sB = shardB.load!.scenarios[0]!.steps[1]!;
    expect(status.counts['429']).toBe(sA.counts['429'] + sB.counts['429']);
    expect(status.latency.percentiles.count).toBe(sA.latency.percentiles.count + sB.latency.percentiles.count);
    expect(scenario.shards).toBe(2);
  });

  it('aligns time series on wall-clock seconds: shard b started 2 s later', () => {
    const series = scenario.series.find((s) => s.step === 'run')!.points;
    const pa = shardA.load!.scenarios[0]!.series[0]!.points;
    const pb = shardB.load!.scenarios[0]!.series[0]!.points;
    expect(series.length).toBe(pa.length + 2);
    const at = (t: number) => series.find((p) => p.tSec === t)!;
    expect(at(0).offeredPerSec).toBe(pa[0]!.offeredPerSec);
    expect(at(5).offeredPerSec).toBe(pa[5]!.offeredPerSec + pb[3]!.offeredPerSec);
    expect(at(5).counts['2xx']).toBe(pa[5]!.counts['2xx'] + pb[3]!.counts['2xx']);
    expect(scenario.durationMs).toBe(shardA.load!.scenarios[0]!.durationMs + 2_000);
  });

  it('re-evaluates thresholds on the merged whole', () => {
    // each shard passed count<1.5×its own requests; the whole has more than either limit
    const reqs = scenario.thresholds.filter((t) => t.metric === 'run.reqs');
    expect(reqs.map((t) => t.observed)).toEqual([a.length + b.length, a.length + b.length]);
    expect(reqs.some((t) => !t.passed)).toBe(true);
    const iterations = scenario.thresholds.find((t) => t.metric === 'iterations')!;
    expect(iterations).toMatchObject({ observed: a.length + b.length, passed: true });
    expect(scenario.verdict.status).toBe('fail');
    expect(merged.overall.exitCode).toBe(EXIT.TARGET_FAILED);
  });

  it('keeps every shard\'s charts and findings, labelled by shard, and records the shards in meta', () => {
    const chart = scenario.charts.find((c) => c.id === 'accepted-per-window')!;
    expect(chart.series.map((s) => s.name)).toEqual(['gen-a: accepted', 'gen-b: accepted']);
    expect(chart.referenceLines).toHaveLength(1);
    expect(scenario.verdict.findings.map((f) => f.label)).toEqual(['gen-a: accepted per 10 s window', 'gen-b: accepted per 10 s window']);
    expect(merged.meta.labels?.['shards']).toBe('gen-a (a.json), gen-b (b.json)');
    expect(merged.meta.startedAt).toBe('2026-11-22T10:00:00.000Z');
  });

  it('merging is associative: ((a+b)+c) has the same percentiles as (a+(b+c))', () => {
    const c = shard(3, drawLatencies(seededRng(303), 1_500), '2026-11-22T10:00:01.000Z', 'gen-c');
    const left = mergeResults([{ result: mergeResults([{ result: shardA, source: 'a' }, { result: shardB, source: 'b' }]), source: 'ab' }, { result: c, source: 'c' }]);
    const right = mergeResults([{ result: shardA, source: 'a' }, { result: mergeResults([{ result: shardB, source: 'b' }, { result: c, source: 'c' }]), source: 'bc' }]);
    const p = (r: QbenchResult) => r.load!.scenarios[0]!.steps[0]!.latency.percentiles;
    expect(p(left)).toEqual(p(right));
    expect(left.load!.scenarios[0]!.shards).toBe(3);
  });

  it('refuses shards of the same scenario with different executors', () => {
    const other = QbenchResult.parse(sampleResult({ seed: 9, samples: 100 }));
    other.load!.scenarios[0]!.executor = 'ramping-vus';
    expect(() => mergeResults([{ result: shardA, source: 'a.json' }, { result: other, source: 'c.json' }])).toThrow(/cannot merge scenario "steady-run": the shards ran different executors \(a\.json: constant-arrival-rate, c\.json: ramping-vus\)/);
  });
});
