// readResult: validation at the boundary, with every problem reported and unknown majors refused.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQbenchError } from '../../../src/errors.js';
import { parseResult, readResult } from '../../../src/result/read-result.js';
import { sampleResult } from './sample-result.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qbench-read-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readResult', () => {
  it('reads a saved result', async () => {
    const r = sampleResult({ samples: 200 });
    const file = path.join(dir, 'ok.json');
    await writeFile(file, JSON.stringify(r));
    expect(await readResult(file)).toEqual(r);
  });

  it('refuses an unknown major schemaVersion with a clear error', () => {
    const r = { ...sampleResult({ samples: 50 }), schemaVersion: '2.0.0' };
    expect(() => parseResult(r, 'new.json')).toThrow(/new\.json: schemaVersion 2\.0\.0 has major 2; this qbench is older and reads major 1 only.*Upgrade qbench/);
  });

  it('names every invalid field at once', () => {
    const r = sampleResult({ samples: 50 }) as unknown as { meta: Record<string, unknown>; overall: Record<string, unknown> };
    r.meta['durationMs'] = -1;
    r.overall['exitCode'] = 'one';
    try {
      parseResult(r, 'bad.json');
      expect.unreachable();
    } catch (e) {
      expect(isQbenchError(e, 'QB_ERR_CONFIG')).toBe(true);
      const msg = (e as Error).message;
      expect(msg).toMatch(/meta\.durationMs/);
      expect(msg).toMatch(/overall\.exitCode/);
    }
  });

  it('explains a missing file, non-JSON and a wrong kind', async () => {
    await expect(readResult(path.join(dir, 'nope.json'))).rejects.toThrow(/nope\.json: cannot read the result file \(no such file\)/);
    const junk = path.join(dir, 'junk.json');
    await writeFile(junk, '{not json');
    await expect(readResult(junk)).rejects.toThrow(/junk\.json: not JSON/);
    expect(() => parseResult({ kind: 'qbench-comparison' }, 'c.json')).toThrow(/it is a comparison/);
  });
});
