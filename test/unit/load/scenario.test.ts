// Scenario validation and command-line overrides (src/load/scenario.ts, loader.ts), the
// duration grammar, and aggregation across shards (totals and series unchanged by the split).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyOverrides } from '../../../src/load/loader.js';
import { parseScenario, type ScenarioInput } from '../../../src/load/scenario.js';
import { parseDurationMs } from '../../../src/spec/index.js';
import { Aggregator } from '../../../src/load/aggregate.js';
import { ShardRecorder } from '../../../src/load/recorder.js';
import { formatProgress } from '../../../src/load/progress.js';
import { isQbenchError } from '../../../src/errors.js';

describe('scenario validation and overrides', () => {
  it('max-throughput takes exactly one single-request step', () => {
    const bad = () => parseScenario({ name: 'm', executor: 'max-throughput', durationMs: 1000, steps: [{ kind: 'run', input: {}, follow: 'poll' }] });
    expect(bad).toThrow(/exactly one single-request step/);
    expect(() => parseScenario({ name: 'd', executor: 'iterations', iterations: 1, steps: [{ kind: 'health' }, { kind: 'health' }] })).toThrow(/two steps record under "health"/);
  });

  it('--duration stretches a ramp keeping its shape; --rate scales it to the peak; --set writes any path', () => {
    const raw = { name: 'r', executor: 'ramping-arrival-rate' as const, startRatePerSec: 10, stages: [{ durationMs: 1000, targetRatePerSec: 100 }, { durationMs: 3000, targetRatePerSec: 50 }], steps: [{ kind: 'health' as const }] };
    const { input } = applyOverrides(raw, { durationMs: 8000, ratePerSec: 200, set: [['stages.1.targetRatePerSec', 7], ['maxInFlight', 9]] });
    const s = parseScenario(input);
    expect(s.executor === 'ramping-arrival-rate' && s.stages.map((x) => x.durationMs)).toEqual([2000, 6000]);
    expect(s.executor === 'ramping-arrival-rate' && s.stages.map((x) => x.targetRatePerSec)).toEqual([200, 7]);
    expect(s.executor === 'ramping-arrival-rate' && s.startRatePerSec).toBe(20);
    expect(s.maxInFlight).toBe(9);
    // The module's own object is untouched.
    expect(raw.stages[1]!.targetRatePerSec).toBe(50);
  });

  it('a description written from the scenario\'s own numbers says what --rate, --duration and --vus changed', () => {
    const raw: ScenarioInput = { name: 's', description: 'steady at 20/s for 300 s', executor: 'constant-arrival-rate', ratePerSec: 20, durationMs: 300_000, steps: [{ kind: 'health' }] };
    expect(applyOverrides(raw, { ratePerSec: 8, durationMs: 20_000 }).input['description']).toBe('steady at 20/s for 300 s (as run: --rate 8/s, --duration 20 s)');
    expect(applyOverrides(raw, { threads: 2 }).input['description']).toBe('steady at 20/s for 300 s');
    // --vus does not apply to an arrival rate: the note says so, the description is left alone.
    expect(applyOverrides(raw, { vus: 3 }).input['description']).toBe('steady at 20/s for 300 s');
  });

  it('an override out of the hard bounds is a scenario error naming the field', () => {
    const { input } = applyOverrides({ name: 'x', executor: 'constant-arrival-rate', ratePerSec: 1, durationMs: 1000, steps: [{ kind: 'health' }] }, { durationMs: 25 * 3_600_000 });
    let err: unknown;
    try {
      parseScenario(input);
    } catch (e) {
      err = e;
    }
    expect(isQbenchError(err, 'QB_ERR_SCENARIO')).toBe(true);
    expect((err as Error).message).toMatch(/durationMs must be at most 86400000 ms/);
  });

  it('parses human durations and refuses malformed ones', () => {
    expect(parseDurationMs('1m30s')).toBe(90_000);
    expect(parseDurationMs('250ms')).toBe(250);
    expect(parseDurationMs('2h')).toBe(7_200_000);
    expect(parseDurationMs('30')).toBeUndefined();
    expect(parseDurationMs('5 minutes')).toBeUndefined();
  });
});

describe('aggregation across shards', () => {
  it('splitting records over shards changes nothing in the merged totals and series', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 2999 }), fc.double({ min: 0.01, max: 500, noNaN: true }), fc.constantFrom(200, 429, 500, null)), { maxLength: 80 }), fc.integer({ min: 1, max: 4 }), (recs, shards) => {
        const run = (n: number) => {
          const agg = new Aggregator(n);
          const rs = Array.from({ length: n }, (_, i) => new ShardRecorder(i, 0, agg));
          // A shard records answers as they end: in order of end time, as in a real run.
          const sorted = [...recs].sort((a, b) => a[0] + a[1] - (b[0] + b[1]));
          sorted.forEach(([t, ms, status], i) => rs[i % n]!.request({ metric: 's', intendedMs: t, sentMs: t, endMs: t + ms, status }));
          for (const r of rs) r.roll(10_000, true);
          agg.finish();
          const st = agg.steps.get('s');
          return { counts: st?.counts, p99: st?.latency.getValueAtPercentile(99), series: agg.series() };
        };
        expect(run(shards)).toEqual(run(1));
      }),
      { numRuns: 25 },
    );
  });

  it('formats a progress line with rate, in-flight, percentiles and 429s', () => {
    const line = formatProgress({ scenario: 's', elapsedMs: 5000, plannedMs: 10_000, startedPerSec: 99, inFlight: 3, requests: 500, status429: 7, errors: 1, p50Ms: 1.5, p99Ms: 1500, dropped: 2 });
    expect(line).toBe('s 5s/10s 50% | 99/s started | in-flight 3 | reqs 500 | p50 1.5ms p99 1.50s | 429 7 | errors 1 | dropped 2');
  });
});
