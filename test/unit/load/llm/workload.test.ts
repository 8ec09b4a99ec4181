// Length distributions, synthetic prompts and datasets of the LLM workload.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRng } from '../../../../src/deployment/random.js';
import { drawLength, estimateTokens, loadDataset, loadLengthDist, parseLengthDist, syntheticPrompt, Workload } from '../../../../src/load/llm/workload.js';
import { isQbenchError } from '../../../../src/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-llm-workload-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const draws = (spec: string, n: number, seed = 7): number[] => {
  const d = parseLengthDist('--x', spec);
  const rng = seededRng(seed);
  return Array.from({ length: n }, () => drawLength(d, rng));
};

describe('length distributions', () => {
  it('parses each form', () => {
    expect(parseLengthDist('--x', '64')).toEqual({ kind: 'fixed', tokens: 64 });
    expect(parseLengthDist('--x', 'uniform:10-20')).toEqual({ kind: 'uniform', min: 10, max: 20 });
    expect(parseLengthDist('--x', 'uniform:10..20')).toEqual({ kind: 'uniform', min: 10, max: 20 });
    expect(parseLengthDist('--x', 'normal:100,10')).toEqual({ kind: 'normal', mean: 100, sd: 10, min: 1, max: 140 });
    expect(parseLengthDist('--x', 'normal:100,10,90,105')).toEqual({ kind: 'normal', mean: 100, sd: 10, min: 90, max: 105 });
  });

  it.each(['0', 'uniform:20-10', 'normal:100', 'normal:100,0', 'lognormal:3', 'abc', '2000000'])('refuses %s naming the flag and the forms', (bad) => {
    let caught: unknown;
    try {
      parseLengthDist('--prompt-tokens', bad);
    } catch (e) {
      caught = e;
    }
    expect(isQbenchError(caught, 'QB_ERR_USAGE')).toBe(true);
    expect((caught as Error).message).toMatch(/^--prompt-tokens "/);
  });

  it('uniform draws cover the bounds and only them', () => {
    const xs = draws('uniform:3-6', 2000);
    expect(new Set(xs)).toEqual(new Set([3, 4, 5, 6]));
  });

  it('a bounded normal stays in its bounds, with its mean when the bounds are wide', () => {
    const xs = draws('normal:200,20', 20_000);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(1);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    // Standard error of the mean is 20/sqrt(20000) = 0.14: 1 is seven of them.
    expect(Math.abs(mean - 200)).toBeLessThan(1);
    const tight = draws('normal:200,50,190,210', 5000);
    expect(Math.min(...tight)).toBe(190);
    expect(Math.max(...tight)).toBe(210);
  });

  it('the same seed draws the same lengths', () => {
    expect(draws('uniform:1-1000', 50, 3)).toEqual(draws('uniform:1-1000', 50, 3));
    expect(draws('uniform:1-1000', 50, 3)).not.toEqual(draws('uniform:1-1000', 50, 4));
  });

  it('a file of numbers is sampled; a bad entry is named', async () => {
    const f = path.join(dir, 'lens.txt');
    await writeFile(f, '5\n7\n\n9\n');
    const d = await loadLengthDist('--output-tokens', parseLengthDist('--output-tokens', `file:${f}`));
    const rng = seededRng(1);
    expect(new Set(Array.from({ length: 300 }, () => drawLength(d, rng)))).toEqual(new Set([5, 7, 9]));
    await writeFile(f, '[5, 0]');
    await expect(loadLengthDist('--output-tokens', parseLengthDist('--output-tokens', `file:${f}`))).rejects.toThrow(/entry 2 is 0/);
  });
});

describe('prompts', () => {
  it('a synthetic prompt of N tokens is N three-letter words: N by the chars/4 rule too', () => {
    for (const n of [1, 7, 128, 1000]) {
      const p = syntheticPrompt(n, seededRng(n));
      expect(p.split(' ')).toHaveLength(n);
      expect(p.split(' ').every((w) => w.length === 3)).toBe(true);
      expect(Math.ceil(p.length / 4)).toBe(n);
    }
  });

  it('every run of a seed draws the same requests in the same order', () => {
    const w = () => new Workload({ seed: 5, promptTokens: parseLengthDist('--p', 'uniform:5-50'), outputTokens: parseLengthDist('--o', 'uniform:1-9') });
    const a = w();
    const b = w();
    const xs = Array.from({ length: 20 }, () => a.take());
    expect(Array.from({ length: 20 }, () => b.take())).toEqual(xs);
    expect(xs.every((x) => x.promptTokens >= 5 && x.promptTokens <= 50 && x.maxTokens >= 1 && x.maxTokens <= 9)).toBe(true);
  });

  it('reads JSONL prompts and messages and ShareGPT conversations, skipping other shapes', async () => {
    const jsonl = path.join(dir, 'd.jsonl');
    await writeFile(jsonl, ['"plain prompt"', '{"prompt":"p2","output_tokens":12}', '{"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]}', '{"other":1}', ''].join('\n'));
    const a = await loadDataset(jsonl);
    expect(a.skipped).toBe(1);
    expect(a.entries).toEqual([
      { messages: [{ role: 'user', content: 'plain prompt' }], outputTokens: undefined },
      { messages: [{ role: 'user', content: 'p2' }], outputTokens: 12 },
      { messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }], outputTokens: undefined },
    ]);
    const share = path.join(dir, 'sharegpt.json');
    await writeFile(share, JSON.stringify([{ conversations: [{ from: 'human', value: 'hello there' }, { from: 'gpt', value: 'x'.repeat(40) }] }, { conversations: [{ from: 'gpt', value: 'only a reply' }] }]));
    const b = await loadDataset(share);
    expect(b.entries).toEqual([{ messages: [{ role: 'user', content: 'hello there' }], outputTokens: 10 }]);
    expect(b.skipped).toBe(1);
  });

  it('walks a dataset in a seeded order, each entry once before any repeats', () => {
    const entries = Array.from({ length: 5 }, (_, i) => ({ messages: [{ role: 'user', content: `p${i}` }], outputTokens: i + 1 }));
    const w = new Workload({ seed: 9, promptTokens: parseLengthDist('--p', '1'), outputTokens: undefined, dataset: { file: 'x', entries } });
    const first = Array.from({ length: 5 }, () => w.take().prompt);
    expect(new Set(first).size).toBe(5);
    const again = Array.from({ length: 5 }, () => w.take());
    expect(again.map((x) => x.prompt)).toEqual(first);
    expect(again.every((x) => x.maxTokens === Number(x.prompt.slice(1)) + 1 && x.promptTokens === estimateTokens(x.prompt))).toBe(true);
  });

  it('an unreadable or empty dataset is a configuration error naming --dataset', async () => {
    await expect(loadDataset(path.join(dir, 'missing.jsonl'))).rejects.toThrow(/^--dataset: cannot read/);
    const f = path.join(dir, 'bad.jsonl');
    await writeFile(f, '{"x":1}\n');
    await expect(loadDataset(f)).rejects.toThrow(/no usable entry/);
  });
});
