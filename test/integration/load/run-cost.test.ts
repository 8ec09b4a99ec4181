// A load run against an emulator whose endpoint has a deployment carries the run's cost
// (load.cost, from the billing meter before and after) and every renderer prints it; a run
// with the route hidden (an opaque target) carries none.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runLoad } from '../../../src/load/run-load.js';
import { renderConsole, renderMarkdown, renderHtml } from '../../../src/report/index.js';
import { QbenchResult } from '../../../src/result/index.js';
import { withEmulator, withOpaque } from './suite-harness.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const JOBS = 6;
const relaxed = { maxSendLatenessP99Ms: 5000, maxEventLoopDelayP99Ms: 5000, minAchievedRatio: 0.5 };

describe('load: the cost of a run on an emulated deployment', () => {
  it('load.cost holds the billed worker-seconds, cost per 1,000 jobs and per million tokens; every renderer shows it', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'qbench-run-cost-'));
    const file = path.join(dir, 'jobs.mjs');
    await writeFile(file, `export default ${JSON.stringify({ name: 'jobs', executor: 'iterations', iterations: JOBS, vus: 2, steps: [{ kind: 'runsync', input: { prompt: 'x' } }], validity: relaxed })};\n`);
    const deployment = {
      workersMin: 1, workersMax: 2, idleTimeoutS: 5, scalerType: 'REQUEST_COUNT', scalerValue: 1, gpuTypeId: 'H100 PRO',
      // 3 chunks of 10 tokens per job (at 100, 200 and 300 ms of a 300 ms execution).
      timing: { coldStart: { kind: 'constant', ms: 500 }, execution: { kind: 'constant', ms: 300 }, stream: { firstChunk: { kind: 'constant', ms: 100 }, chunkGap: { kind: 'constant', ms: 100 }, tokensPerChunk: 10 } },
    } as const;
    await withEmulator({ timeScale: 20, endpoints: ['gpu'], deployments: { gpu: deployment } }, async (target) => {
      const result = QbenchResult.parse(await runLoad({ files: [file], target }));
      const c = result.load?.cost;
      expect(c).toMatchObject({ endpointId: 'gpu', gpuTypeId: 'H100 PRO', jobs: JOBS, tokens: JOBS * 30 });
      expect(c?.billedS).toBeGreaterThan(0);
      expect(c?.costUsd).toBeGreaterThan(0);
      expect(c?.costPer1000JobsUsd).toBeCloseTo(((c?.costUsd ?? 0) / JOBS) * 1000, 12);
      expect(c?.costPerMillionTokensUsd).toBeCloseTo(((c?.costUsd ?? 0) / (JOBS * 30)) * 1e6, 12);
      for (const text of [renderConsole(result, { color: false }), renderMarkdown(result), renderHtml(result)]) expect(text).toContain('cost on the emulated deployment of gpu');

      const opaque = await withOpaque(target, (t) => runLoad({ files: [file], target: t }));
      expect(opaque.load?.cost).toBeUndefined();
    });
  });
});
