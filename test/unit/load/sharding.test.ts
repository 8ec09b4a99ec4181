// Shards of one schedule: the flags and environment that pick a shard and the shared start,
// the split (process shards times threads cover the global schedule exactly once), and the
// merge's check that a set of shard results is one complete run, naming what is not.
import { describe, expect, it } from 'vitest';
import { schedule } from '../../../src/load/arrivals.js';
import { resolveShard, resolveStartAt, threadSlot } from '../../../src/load/sharding.js';
import { checkShardSet } from '../../../src/report/merge.js';
import type { QbenchResult, ShardInfo } from '../../../src/result/model.js';
import { sampleResult } from '../result/sample-result.js';

describe('resolveShard / resolveStartAt', () => {
  it('reads --shard i/n, or --shards n with JOB_COMPLETION_INDEX, and names each bad input', () => {
    expect(resolveShard('2/4', undefined, {})).toEqual({ index: 2, count: 4 });
    expect(resolveShard(undefined, '4', { JOB_COMPLETION_INDEX: '3' })).toEqual({ index: 3, count: 4 });
    expect(resolveShard(undefined, undefined, { JOB_COMPLETION_INDEX: '3' })).toBeUndefined();
    expect(() => resolveShard('4/4', undefined, {})).toThrow(/--shard: the shard index must be 0\.\.3 for 4 shards, got 4/);
    expect(() => resolveShard('1-4', undefined, {})).toThrow(/--shard "1-4": write index\/count/);
    expect(() => resolveShard('0/0', undefined, {})).toThrow(/shard count must be 1\.\.1000/);
    expect(() => resolveShard(undefined, '4', {})).toThrow(/JOB_COMPLETION_INDEX.*not set/);
    expect(() => resolveShard(undefined, '4', { JOB_COMPLETION_INDEX: '7' })).toThrow(/JOB_COMPLETION_INDEX: the shard index must be 0\.\.3/);
    expect(() => resolveShard('0/2', '2', {})).toThrow(/give one/);
  });

  it('reads the start instant from --start-at or QBENCH_START_AT, with its zone', () => {
    expect(resolveStartAt('2030-01-01T12:00:00Z', {})).toBe(Date.UTC(2030, 0, 1, 12));
    expect(resolveStartAt(undefined, { QBENCH_START_AT: '2030-01-01T13:00:00+01:00' })).toBe(Date.UTC(2030, 0, 1, 12));
    expect(resolveStartAt(undefined, {})).toBeUndefined();
    expect(() => resolveStartAt('2030-01-01 12:00', {})).toThrow(/--start-at "2030-01-01 12:00": write an ISO-8601 instant with its zone/);
    expect(() => resolveStartAt(undefined, { QBENCH_START_AT: 'soon' })).toThrow(/QBENCH_START_AT "soon"/);
  });
});

describe('the split', () => {
  it('n process shards of T threads each run every start of the one Poisson schedule exactly once', () => {
    const opts = { segments: [{ durationMs: 2000, fromRatePerSec: 300, toRatePerSec: 900 }], arrivals: 'poisson' as const, seed: 7 };
    const whole = [...schedule({ ...opts, shardIndex: 0, shardCount: 1 })];
    const n = 3;
    const threads = 2;
    const parts = Array.from({ length: n }, (_, p) =>
      Array.from({ length: threads }, (_, t) => {
        const slot = threadSlot({ index: p, count: n }, t, threads);
        const mine = [...schedule({ ...opts, shardIndex: slot.index, shardCount: slot.count })];
        for (const s of mine) expect(s.index % n).toBe(p);
        return mine;
      }).flat(),
    );
    const union = parts.flat().sort((a, b) => a.index - b.index);
    expect(union).toEqual(whole);
  });
});

function shardResult(index: number, count: number, change: (s: ShardInfo) => void = () => undefined): QbenchResult {
  const r = sampleResult({ seed: index + 1, samples: 50 });
  const s = r.load!.scenarios[0]!;
  s.shard = {
    index,
    count,
    host: `pod-${index}`,
    identity: { file: 'steady.ts', fileSha256: 'a'.repeat(64), params: { op: 'run' }, seed: 1, configSha256: 'b'.repeat(64) },
    startAt: '2030-01-01T12:00:00.000Z',
    scheduleStartedAt: '2030-01-01T12:00:00.000Z',
    missedAtJoin: 0,
  };
  change(s.shard);
  r.load!.scenarios = [s];
  return r;
}

describe('checkShardSet', () => {
  const name = sampleResult().load!.scenarios[0]!.name;
  const input = (r: QbenchResult, i: number) => ({ result: r, source: `shard-${i}.json` });

  it('accepts each index of one run exactly once', () => {
    expect(() => checkShardSet([0, 1, 2].map((i) => input(shardResult(i, 3), i)))).not.toThrow();
  });

  it('names the missing, the duplicated and the mismatched shards, and what differs', () => {
    const set = [input(shardResult(0, 3), 0), input(shardResult(0, 3), 9), input(shardResult(2, 3, (s) => (s.identity.seed = 2)), 2), input(shardResult(1, 4), 1)];
    let message = '';
    try {
      checkShardSet(set);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(`scenario ${name} shard 0/3 is duplicated: shard-0.json, shard-9.json`);
    expect(message).toContain(`shard-2.json: scenario ${name} shard 2/3 ran a different scenario than shard-0.json (seed 2 vs 1)`);
    expect(message).toContain(`shard-1.json: scenario ${name} is shard 1/4, the others are shards of 3`);
    expect(message).toContain(`scenario ${name} is missing shards 1/3, 2/3`);
  });

  it('refuses shards given different start instants, and a plain result among shards', () => {
    const other = shardResult(1, 2, (s) => (s.startAt = '2030-01-01T12:00:05.000Z'));
    expect(() => checkShardSet([input(shardResult(0, 2), 0), input(other, 1)])).toThrow(/different start instants/);
    const plain = sampleResult({ seed: 5, samples: 50 });
    expect(() => checkShardSet([input(shardResult(0, 1), 0), input(plain, 1)])).toThrow(/shard-1\.json: scenario .* is not a shard/);
  });
});
