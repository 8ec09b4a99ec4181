// Traffic profiles and their seeded arrivals: Poisson counts and gaps within stated tolerances,
// evenly spaced constant rates, the daily curve hour by hour, bursts, input shares, the same seed
// giving the same schedule, replay parsing (CSV, JSONL, a load result's rate) and every bad field
// named with its allowed range.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isQbenchError } from '../../../src/errors.js';
import {
  arrivalSchedule,
  loadResultRates,
  loadTrafficProfile,
  parseCsvTimes,
  parseJsonlTimes,
  parseTrafficProfile,
  trafficFromFlags,
  type TrafficProfileInput,
} from '../../../src/sim/index.js';

const profile = (p: TrafficProfileInput) => parseTrafficProfile(p);

/** The message of the error `fn` throws, checked to be a qbench error that exits 2. */
function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(isQbenchError(e)).toBe(true);
    expect((e as { exitCode: number }).exitCode).toBe(2);
    return (e as Error).message;
  }
  throw new Error('expected an error');
}

function gaps(times: Float64Array): { mean: number; variance: number } {
  let sum = 0;
  for (let i = 1; i < times.length; i += 1) sum += (times[i] as number) - (times[i - 1] as number);
  const n = times.length - 1;
  const mean = sum / n;
  let sq = 0;
  for (let i = 1; i < times.length; i += 1) sq += ((times[i] as number) - (times[i - 1] as number) - mean) ** 2;
  return { mean, variance: sq / (n - 1) };
}

describe('arrival generators', () => {
  it('Poisson at 50 jobs/s for an hour: count within 4 sd of 180,000 (sd 424), gaps exponential (mean 20 ms within 1%, variance 400 ms² within 3%)', () => {
    const s = arrivalSchedule(trafficFromFlags({ ratePerSec: 50, durationMs: 3_600_000 }), 7);
    expect(Math.abs(s.timesMs.length - 180_000)).toBeLessThan(4 * Math.sqrt(180_000));
    const g = gaps(s.timesMs);
    // Relative sd of the mean of 180,000 exponential gaps is 0.24%, of their variance 0.67%: 1% and 3% are > 4 sd.
    expect(Math.abs(g.mean - 20) / 20).toBeLessThan(0.01);
    expect(Math.abs(g.variance - 400) / 400).toBeLessThan(0.03);
    expect(s.timesMs[0]).toBeGreaterThanOrEqual(0);
    expect(s.timesMs[s.timesMs.length - 1]).toBeLessThan(3_600_000);
    expect(s.durationMs).toBe(3_600_000);
  });

  it('the same seed gives the same schedule, another seed another', () => {
    const p = trafficFromFlags({ ratePerSec: 5, durationMs: 60_000 });
    expect(arrivalSchedule(p, 3).timesMs).toEqual(arrivalSchedule(p, 3).timesMs);
    expect(arrivalSchedule(p, 3).timesMs).not.toEqual(arrivalSchedule(p, 4).timesMs);
  });

  it('a constant rate is evenly spaced: 4 jobs/s for 10 s is 40 jobs, 250 ms apart from 0', () => {
    const s = arrivalSchedule(profile({ durationS: 10, arrivals: { kind: 'constant', ratePerSec: 4 } }), 1);
    expect(Array.from(s.timesMs)).toEqual(Array.from({ length: 40 }, (_, i) => i * 250));
  });

  it('the daily curve follows the hour from startHour: an hour at 0 jobs/s has none, others are within 4 sd of their rate', () => {
    const byHour = Array.from({ length: 24 }, (_, h) => (h % 2 === 0 ? 0 : 2));
    const s = arrivalSchedule(profile({ durationS: 4 * 3_600, arrivals: { kind: 'daily', ratePerSecByHour: byHour, startHour: 22 } }), 11);
    const counts = [0, 0, 0, 0];
    for (const t of s.timesMs) counts[Math.floor(t / 3_600_000)] = (counts[Math.floor(t / 3_600_000)] ?? 0) + 1;
    // Hours 22, 23, 0, 1 of the day: rates 0, 2, 0, 2 jobs/s (7,200 expected, sd 85).
    expect(counts[0]).toBe(0);
    expect(counts[2]).toBe(0);
    for (const c of [counts[1], counts[3]]) expect(Math.abs((c as number) - 7_200)).toBeLessThan(4 * 85);
  });

  it('rate steps: a Poisson rate per step', () => {
    const s = arrivalSchedule(profile({ durationS: 200, arrivals: { kind: 'steps', stepS: 100, ratePerSec: [0, 10] } }), 2);
    expect(s.timesMs.every((t) => t >= 100_000)).toBe(true);
    expect(Math.abs(s.timesMs.length - 1_000)).toBeLessThan(4 * Math.sqrt(1_000));
  });

  it('bursts add on top: `count` jobs at one instant, or a Poisson stretch within its window', () => {
    const base = { durationS: 100, arrivals: { kind: 'constant' as const, ratePerSec: 1 } };
    const s = arrivalSchedule(profile({ ...base, bursts: [{ atS: 50.5, count: 30 }, { atS: 10, ratePerSec: 100, durationS: 5 }] }), 5);
    const at = Array.from(s.timesMs);
    expect(at.filter((t) => t === 50_500)).toHaveLength(30);
    const inStretch = at.filter((t) => t >= 10_000 && t < 15_000).length - 5; // the base brings 5 there
    expect(Math.abs(inStretch - 500)).toBeLessThan(4 * Math.sqrt(500));
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  it('input classes by share (relative shares): 3:1 gives 75% ± 1% of 40,000 arrivals to the first', () => {
    const s = arrivalSchedule(
      profile({ durationS: 4_000, arrivals: { kind: 'constant', ratePerSec: 10 }, inputs: [{ name: 'short', share: 3, input: { size: 's' } }, { share: 1, input: { size: 'l' } }] }),
      9,
    );
    let first = 0;
    for (const c of s.classes) if (c === 0) first += 1;
    expect(Math.abs(first / s.classes.length - 0.75)).toBeLessThan(0.01);
    expect(s.inputs).toEqual([{ size: 's' }, { size: 'l' }]);
  });

  it('with no inputs every job has the empty input', () => {
    const s = arrivalSchedule(trafficFromFlags({ ratePerSec: 1, durationMs: 10_000 }), 1);
    expect(s.inputs).toEqual([{}]);
    expect(s.classes.every((c) => c === 0)).toBe(true);
  });
});

describe('profile validation (exit 2, the field and its allowed range named)', () => {
  it.each([
    [{ durationS: 10, arrivals: { kind: 'poisson', ratePerSec: -1 } }, 'arrivals.ratePerSec must be > 0 and at most 10000 jobs/s'],
    [{ durationS: 10, arrivals: { kind: 'poisson', ratePerSec: 20_000 } }, 'arrivals.ratePerSec must be > 0 and at most 10000 jobs/s'],
    [{ arrivals: { kind: 'poisson', ratePerSec: 1 } }, 'durationS is required'],
    [{ durationS: 0, arrivals: { kind: 'poisson', ratePerSec: 1 } }, 'durationS must be > 0 and at most 604800 s'],
    [{ durationS: 10, arrivals: { kind: 'daily', ratePerSecByHour: [1, 2] } }, 'exactly 24 rates'],
    [{ durationS: 10, arrivals: { kind: 'daily', ratePerSecByHour: Array(24).fill(1), startHour: 24 } }, 'arrivals.startHour must be 0..23'],
    [{ durationS: 10, arrivals: { kind: 'poisson', ratePerSec: 1 }, bursts: [{ atS: 20, count: 5 }] }, 'bursts[0].atS (20) must be before the end of the traffic'],
    [{ durationS: 10, arrivals: { kind: 'poisson', ratePerSec: 1 }, bursts: [{ atS: 1, count: 0 }] }, 'bursts[].count must be 1..1000000'],
    [{ durationS: 10, arrivals: { kind: 'poisson', ratePerSec: 1 }, bursts: [{ atS: 1 }] }, 'each burst is {atS, count} (jobs at once) or {atS, ratePerSec, durationS}'],
    [{ durationS: 10, arrivals: { kind: 'poisson', ratePerSec: 1 }, inputs: [{ share: 0, input: {} }] }, 'inputs[].share must be > 0'],
    [{ durationS: 10, arrivals: { kind: 'replay' } }, 'needs exactly one of "file" and "timesS"'],
    [{ durationS: 10, arrivals: { kind: 'sine' } }, 'arrivals'],
    [{ durationS: 10, arrivals: { kind: 'poisson', ratePerSec: 1 }, rate: 3 }, 'rate'],
  ])('%j', (p, message) => {
    const m = errorOf(() => parseTrafficProfile(p, 'profile.json'));
    expect(m).toContain('profile.json: invalid traffic profile');
    expect(m).toContain(message);
  });

  it('the flags name the flag', () => {
    expect(errorOf(() => trafficFromFlags({ ratePerSec: 0, durationMs: 1_000 }))).toContain('--rate must be > 0 and at most 10000 jobs/s');
    expect(errorOf(() => trafficFromFlags({ ratePerSec: 1, durationMs: 0 }))).toContain('--duration must be > 0 and at most 7 days');
  });
});

describe('replay', () => {
  it('CSV: the first column, seconds or ISO times, a header line skipped, times from the first', () => {
    const t = parseCsvTimes('time,user\n2026-11-25T09:00:00Z,a\n2026-11-25T09:00:01.5Z,b\n\n2026-11-25T09:00:03Z,c\n', 'a.csv');
    expect(t.map((x) => x - (t[0] as number))).toEqual([0, 1.5, 3]);
    expect(parseCsvTimes('10\n12.25\n11\n', 'b.csv')).toEqual([10, 12.25, 11]);
  });

  it('CSV: a bad line after the first is named by its number', () => {
    expect(errorOf(() => parseCsvTimes('1\n2\nsoon\n', 'c.csv'))).toContain('c.csv line 3: "soon" is not a timestamp');
  });

  it('JSONL: numbers, ISO strings and objects with at/t/time/timestamp; a bad line named', () => {
    expect(parseJsonlTimes('1\n"1970-01-01T00:00:02Z"\n{"at": 3}\n{"timestamp": "1970-01-01T00:00:04Z", "x": 1}\n', 'd.jsonl')).toEqual([1, 2, 3, 4]);
    expect(errorOf(() => parseJsonlTimes('1\n{"when": 2}\n', 'e.jsonl'))).toContain('e.jsonl line 2: expected a timestamp');
    expect(errorOf(() => parseJsonlTimes('1\n{nope\n', 'f.jsonl'))).toContain('f.jsonl line 2: not JSON');
  });

  it("a load result replays its run/runsync offered rate second by second, each scenario at its own start", () => {
    const point = (tSec: number, offeredPerSec: number) => ({ tSec, offeredPerSec });
    const result = {
      kind: 'qbench-result',
      load: {
        scenarios: [
          { name: 'a', startedAt: '2026-11-25T09:00:00.000Z', series: [{ step: 'run', points: [point(0, 5), point(1, 7)] }, { step: 'status', points: [point(0, 100)] }] },
          { name: 'b', startedAt: '2026-11-25T09:00:01.000Z', series: [{ step: 'runsync', points: [point(0, 2), point(2, 3)] }] },
        ],
      },
    };
    const a = loadResultRates(result, 'r.json');
    expect(a.ratePerSec).toEqual([5, 9, 0, 3]);
    expect(a.stepS).toBe(1);
    expect(errorOf(() => loadResultRates({ kind: 'qbench-comparison' }, 'x.json'))).toContain('x.json: cannot replay it');
    expect(errorOf(() => loadResultRates({ kind: 'qbench-result', load: { scenarios: [{ name: 'a', startedAt: '2026-11-25T09:00:00Z', series: [] }] } }, 'y.json'))).toContain('no run or runsync step');
  });

  describe('profile files', () => {
    let dir = '';
    afterAll(async () => {
      if (dir !== '') await rm(dir, { recursive: true, force: true });
    });

    it('a replayed CSV is read relative to the profile, its span the default duration', async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'qbench-traffic-'));
      await writeFile(path.join(dir, 'times.csv'), 'at\n100\n103\n101.5\n');
      await writeFile(path.join(dir, 'p.json'), JSON.stringify({ arrivals: { kind: 'replay', file: 'times.csv' } }));
      const p = await loadTrafficProfile(path.join(dir, 'p.json'));
      const s = arrivalSchedule(p, 1);
      expect(Array.from(s.timesMs)).toEqual([0, 1_500, 3_000]);
      expect(s.durationMs).toBe(3_000);
      await writeFile(path.join(dir, 'bad.json'), JSON.stringify({ arrivals: { kind: 'replay', file: 'missing.csv' } }));
      await expect(loadTrafficProfile(path.join(dir, 'bad.json'))).rejects.toThrow(/arrivals.file .*missing.csv: cannot read it \(no such file\)/);
      await writeFile(path.join(dir, 'notjson.json'), '{');
      await expect(loadTrafficProfile(path.join(dir, 'notjson.json'))).rejects.toThrow(/not JSON/);
    });
  });
});
