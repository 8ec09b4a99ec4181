// A long run's journal stays bounded: past its size cap it is rewritten as a checkpoint (the
// final seconds' buckets folded into one, their series points) plus the buckets not final yet.
// Fed the same run, a capped journal and an uncapped one rebuild the same scenario: counts,
// every HDR histogram bucket by bucket, the series; and both equal the finished result. ~9 s.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/load/engine.js';
import { observeAll } from '../../../src/load/observer.js';
import { parseScenario } from '../../../src/load/scenario.js';
import { loadJournal } from '../../../src/journal/load-journal.js';
import { openJournal } from '../../../src/journal/open.js';
import { readJournal } from '../../../src/journal/read.js';
import { recoverLoad } from '../../../src/journal/recover-load.js';
import { bucketsOf, decodeHistogram } from '../../../src/result/histogram.js';
import type { LoadScenarioResult } from '../../../src/result/model.js';
import { RELAXED_VALIDITY, startTinyServer, tinyTarget, type TinyServer } from '../load/tiny-server.js';

const CAP_BYTES = 3 * 1024;
let dir = '';
let server: TinyServer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-compact-'));
  server = await startTinyServer();
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const histogramsOf = (s: LoadScenarioResult) => s.steps.map((st) => ({ step: st.step, counts: st.counts, latency: bucketsOf(decodeHistogram(st.latency.histogram)), service: bucketsOf(decodeHistogram(st.serviceTime.histogram)) }));

describe('a journal past its size cap', () => {
  it('is rewritten from its checkpoint and rebuilds the same scenario as an uncapped one', { timeout: 60_000 }, async () => {
    const target = tinyTarget(server.url);
    const open = (name: string, maxBytes?: number) =>
      openJournal({ dir: path.join(dir, name), runId: name, command: 'load', argv: ['qbench', 'load'], options: {}, target: { kind: 'remote', queueUrl: server.url, endpointId: 'ep', timeScale: 1 }, ...(maxBytes !== undefined ? { maxBytes } : {}) });
    const capped = await open('capped', CAP_BYTES);
    const whole = await open('whole');
    const s = parseScenario({ name: 'long', executor: 'constant-arrival-rate', ratePerSec: 150, durationMs: 8000, steps: [{ kind: 'run', input: { n: 1 } }, { kind: 'health' }], validity: RELAXED_VALIDITY });
    const observer = observeAll([loadJournal(capped), loadJournal(whole)]);
    observer?.planned?.([s.name]);
    const finished = await runScenario(s, { target, observer });
    await capped.close();
    await whole.close();
    expect(capped.rewrites).toBeGreaterThan(0);
    expect(whole.rewrites).toBe(0);
    // What the cap bounds: the journal before the scenario's own result (which a result.json holds too).
    const beforeResult = async (file: string) => (await readFile(file, 'utf8')).split('\n').filter((l) => !l.startsWith('{"type":"scenario",')).join('\n').length;
    const [c, w] = [await beforeResult(capped.file), await beforeResult(whole.file)];
    // (At 150/s a second's buckets are small beside the checkpoint's fixed part: the saving grows with the rate and the run's length.)
    expect(c, `capped ${c} bytes, whole ${w}`).toBeLessThan(w);

    // As if the process died before the scenario's end: rebuilt from the buckets (and checkpoint).
    const rebuild = async (file: string) => {
      const j = await readJournal(file);
      return recoverLoad(j.records.filter((r) => r.type !== 'scenario'), j.lastAtMs)?.scenarios[0];
    };
    const a = await rebuild(capped.file);
    const b = await rebuild(whole.file);
    if (!a || !b) throw new Error('nothing rebuilt');
    expect(histogramsOf(a)).toEqual(histogramsOf(b));
    expect(histogramsOf(a)).toEqual(histogramsOf(finished));
    expect(a.series).toEqual(b.series);
    expect(a.series).toEqual(finished.series);
    expect(a.iterations).toEqual(finished.iterations);
  });
});
