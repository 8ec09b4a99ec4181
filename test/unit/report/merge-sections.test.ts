// merge keeps every section: load.cost is summed over shards that each read their own emulator's
// billing meter, and a section the merge cannot combine is refused by name, never dropped.
import { describe, expect, it } from 'vitest';
import { mergeResults } from '../../../src/report/merge.js';
import { QbenchResult, type RunCost } from '../../../src/result/model.js';
import { sampleResult } from '../result/sample-result.js';

const COST: RunCost = {
  endpointId: 'ep',
  gpuTypeId: 'NVIDIA GeForce RTX 4090',
  gpuCount: 1,
  billedS: 10,
  activeS: 0,
  flexS: 10,
  initializingS: 4,
  throttledS: 0,
  coldStarts: 2,
  jobs: 100,
  tokens: 0,
  costUsd: 0.0031,
  costPer1000JobsUsd: 0.031,
  costPerMillionTokensUsd: null,
  priceSource: 'table',
};

/** A result on the emulator at `queueUrl`, started at `startedAt` (45 s long), with `cost`. */
function withCost(seed: number, queueUrl: string, startedAt: string, cost: Partial<RunCost> | undefined): QbenchResult {
  const r = sampleResult({ seed, samples: 200, startedAt });
  r.meta.target = { ...r.meta.target, queueUrl };
  if (cost) r.load = { ...r.load!, cost: { ...COST, ...cost } };
  return QbenchResult.parse(r);
}

const T0 = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T11:00:00.000Z';

describe('merge: load.cost', () => {
  it('sums worker-seconds, jobs and dollars of shards that each read their own emulator, and prices the sum again', () => {
    const merged = mergeResults([
      { result: withCost(1, 'http://127.0.0.1:9001', T0, {}), source: 'a.json' },
      { result: withCost(2, 'http://127.0.0.1:9002', T0, { billedS: 30, flexS: 30, coldStarts: 1, jobs: 300, tokens: 2_000, costUsd: 0.0093 }), source: 'b.json' },
    ]);
    const cost = merged.load?.cost;
    expect(cost).toBeDefined();
    expect(cost).toMatchObject({ endpointId: 'ep', gpuTypeId: COST.gpuTypeId, gpuCount: 1, billedS: 40, flexS: 40, activeS: 0, initializingS: 8, coldStarts: 3, jobs: 400, tokens: 2_000, priceSource: 'table' });
    expect(cost!.costUsd).toBeCloseTo(0.0124, 10);
    expect(cost!.costPer1000JobsUsd).toBeCloseTo(0.031, 10);
    expect(cost!.costPerMillionTokensUsd).toBeCloseTo((0.0124 / 2_000) * 1e6, 6);
  });

  it('sums one meter read at disjoint times', () => {
    const merged = mergeResults([
      { result: withCost(1, 'http://127.0.0.1:9001', T0, {}), source: 'a.json' },
      { result: withCost(2, 'http://127.0.0.1:9001', LATER, {}), source: 'b.json' },
    ]);
    expect(merged.load?.cost?.billedS).toBe(20);
  });

  it('keeps a null price: no dollars when the GPU has none', () => {
    const merged = mergeResults([
      { result: withCost(1, 'http://127.0.0.1:9001', T0, { costUsd: null, costPer1000JobsUsd: null, priceSource: null }), source: 'a.json' },
      { result: withCost(2, 'http://127.0.0.1:9002', T0, { costUsd: null, costPer1000JobsUsd: null, priceSource: null }), source: 'b.json' },
    ]);
    expect(merged.load?.cost).toMatchObject({ billedS: 20, costUsd: null, costPer1000JobsUsd: null });
  });

  it('refuses one meter read over overlapping times (each cost holds the other shard\'s traffic)', () => {
    expect(() =>
      mergeResults([
        { result: withCost(1, 'http://127.0.0.1:9001', T0, {}), source: 'a.json' },
        { result: withCost(2, 'http://127.0.0.1:9001', T0, {}), source: 'b.json' },
      ]),
    ).toThrow(/cannot merge the load\.cost section: a\.json and b\.json read the billing meter of the same endpoint .* overlapping times/);
  });

  it('refuses when only some inputs carry a cost, naming those without', () => {
    expect(() =>
      mergeResults([
        { result: withCost(1, 'http://127.0.0.1:9001', T0, {}), source: 'a.json' },
        { result: withCost(2, 'http://127.0.0.1:9002', T0, undefined), source: 'b.json' },
      ]),
    ).toThrow(/cannot merge the load\.cost section: 1 of 2 inputs carry a cost .* b\.json does not/);
  });

  it('merges a shard whose process died before reading the meter: the run is partial and its note says why there is no cost', () => {
    const died = withCost(2, 'http://127.0.0.1:9002', T0, undefined);
    died.incomplete = { note: 'the process ended at 2026-11-22T10:00:30.000Z', processEndedAt: '2026-11-22T10:00:30.000Z', unrecordedMs: 1_000, partial: [], notRun: [] };
    const merged = mergeResults([
      { result: withCost(1, 'http://127.0.0.1:9001', T0, {}), source: 'a.json' },
      { result: died, source: 'b.json' },
    ]);
    expect(merged.load?.cost).toBeUndefined();
    expect(merged.incomplete?.note).toMatch(/load\.cost not merged: b\.json ended before reading the billing meter/);
  });

  it('refuses the costs of different deployments', () => {
    expect(() =>
      mergeResults([
        { result: withCost(1, 'http://127.0.0.1:9001', T0, {}), source: 'a.json' },
        { result: withCost(2, 'http://127.0.0.1:9002', T0, { gpuTypeId: 'NVIDIA A100 80GB PCIe' }), source: 'b.json' },
      ]),
    ).toThrow(/cannot merge the load\.cost section: b\.json priced gpuTypeId NVIDIA A100 80GB PCIe/);
  });

  it('leaves load.cost out when no input has one', () => {
    const merged = mergeResults([
      { result: withCost(1, 'http://127.0.0.1:9001', T0, undefined), source: 'a.json' },
      { result: withCost(2, 'http://127.0.0.1:9002', T0, undefined), source: 'b.json' },
    ]);
    expect(merged.load).toBeDefined();
    expect(merged.load && 'cost' in merged.load).toBe(false);
  });
});

describe('merge: sections it cannot combine', () => {
  const a = withCost(1, 'http://127.0.0.1:9001', T0, undefined);

  it('refuses a plan section by name', () => {
    const withPlan = { ...withCost(2, 'http://127.0.0.1:9002', T0, undefined), plan: {} } as unknown as QbenchResult;
    expect(() => mergeResults([{ result: a, source: 'a.json' }, { result: withPlan, source: 'p.json' }])).toThrow(/cannot merge the plan section: p\.json holds a plan/);
    const withLlmPlan = { ...withCost(2, 'http://127.0.0.1:9002', T0, undefined), llmPlan: {} } as unknown as QbenchResult;
    expect(() => mergeResults([{ result: a, source: 'a.json' }, { result: withLlmPlan, source: 'l.json' }])).toThrow(/cannot merge the llmPlan section: l\.json holds a plan/);
  });

  it('refuses an llm section by name, pointing to qbench compare', () => {
    const withLlm = { ...withCost(2, 'http://127.0.0.1:9002', T0, undefined), llm: {} } as unknown as QbenchResult;
    expect(() => mergeResults([{ result: a, source: 'a.json' }, { result: withLlm, source: 'm.json' }])).toThrow(/cannot merge the llm section: m\.json holds qbench llm runs.*qbench compare them; nothing was written$/);
  });

  it('refuses a section it does not know, top-level or in load, by name', () => {
    const extra = { ...withCost(2, 'http://127.0.0.1:9002', T0, undefined), traces: [] } as unknown as QbenchResult;
    expect(() => mergeResults([{ result: a, source: 'a.json' }, { result: extra, source: 'x.json' }])).toThrow(/cannot merge the traces section: x\.json holds it/);
    const b = withCost(3, 'http://127.0.0.1:9002', T0, undefined);
    const extraLoad = { ...b, load: { ...b.load!, profile: {} } } as unknown as QbenchResult;
    expect(() => mergeResults([{ result: a, source: 'a.json' }, { result: extraLoad, source: 'y.json' }])).toThrow(/cannot merge the load\.profile section: y\.json holds it/);
  });
});
