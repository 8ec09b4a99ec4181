// The fuzz arbitraries: generated values concentrate on the bounds of src/spec, cases cover
// every oracle class, bodies have their exact size and curl lines never carry the key.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXECUTION_TIMEOUT_MS, RUNSYNC_WAIT_MS, TTL_MS } from '../../../src/spec/index.js';
import { boundaryPoints, intAroundBounds } from '../../../src/fuzz/edge-values.js';
import { classifyJobRequest } from '../../../src/fuzz/oracle.js';
import { jobRequestCase, handlerInput } from '../../../src/fuzz/queue-cases.js';
import { bodyBytes, encodeBody } from '../../../src/fuzz/case-body.js';
import { curlLine } from '../../../src/fuzz/curl.js';

describe('arbitraries concentrate at the spec bounds', () => {
  it('boundary points are each bound, its neighbours and the default, read from src/spec', () => {
    expect(boundaryPoints(EXECUTION_TIMEOUT_MS)).toEqual(expect.arrayContaining([
      EXECUTION_TIMEOUT_MS.min - 1, EXECUTION_TIMEOUT_MS.min, EXECUTION_TIMEOUT_MS.min + 1,
      EXECUTION_TIMEOUT_MS.max - 1, EXECUTION_TIMEOUT_MS.max, EXECUTION_TIMEOUT_MS.max + 1, EXECUTION_TIMEOUT_MS.defaultValue,
    ]));
  });

  it('more than half of the generated integers sit on a boundary point', () => {
    for (const b of [EXECUTION_TIMEOUT_MS, TTL_MS, RUNSYNC_WAIT_MS]) {
      const pts = new Set(boundaryPoints(b));
      const sample = fc.sample(intAroundBounds(b), { numRuns: 2000, seed: 1 });
      const onPoint = sample.filter((v) => pts.has(v)).length;
      expect(onPoint / sample.length).toBeGreaterThan(0.5);
      // Both sides of each bound are generated.
      for (const p of [b.min - 1, b.min, b.max, b.max + 1]) expect(sample).toContain(p);
    }
  });

  it('job request cases cover accept, refuse and ambiguous, both operations, and wait on both sides', () => {
    const sample = fc.sample(jobRequestCase, { numRuns: 3000, seed: 3 });
    const verdicts = new Set(sample.map((c) => classifyJobRequest(c).verdict));
    expect([...verdicts].sort()).toEqual(['accept', 'ambiguous', 'refuse']);
    const accepted = sample.filter((c) => classifyJobRequest(c).verdict === 'accept').length;
    // Enough valid requests that a target refusing good input is found, enough invalid ones the other way.
    expect(accepted / sample.length).toBeGreaterThan(0.15);
    expect(accepted / sample.length).toBeLessThan(0.85);
    const waits = new Set(sample.map((c) => c.wait));
    for (const w of [RUNSYNC_WAIT_MS.min - 1, RUNSYNC_WAIT_MS.min, RUNSYNC_WAIT_MS.max, RUNSYNC_WAIT_MS.max + 1]) expect(waits).toContain(String(w));
    expect(sample.some((c) => c.body.kind === 'json' && typeof c.body.value === 'object' && c.body.value !== null && !('input' in c.body.value))).toBe(true);
  });

  it('handler inputs never carry mock_ keys (a fuzz job must not crash or stall a worker)', () => {
    fc.assert(fc.property(handlerInput, (input) => !Object.keys(input).some((k) => k.startsWith('mock_'))));
  });
});

describe('bodies and curl lines', () => {
  it('a padded body has exactly the requested size and is valid JSON', () => {
    for (const bytes of [100, 4097]) {
      const body = { kind: 'padded' as const, bytes };
      const text = encodeBody(body);
      expect(Buffer.byteLength(text)).toBe(bytes);
      expect(bodyBytes(body)).toBe(bytes);
      expect(JSON.parse(text)).toHaveProperty('input.pad');
    }
  });

  it('curl lines reference the key by environment variable, never the key', () => {
    const line = curlLine({ method: 'POST', url: "http://127.0.0.1:1/v2/demo/run?wait=999", auth: 'header-bearer', body: { kind: 'json', value: { input: { q: "it's" } } } });
    expect(line).toContain(`-H 'authorization: Bearer '"$QBENCH_API_KEY"`);
    expect(line).toContain(`'{"input":{"q":"it'\\''s"}}'`);
    const gql = curlLine({ method: 'POST', url: 'http://127.0.0.1:1/graphql', auth: 'query-api-key' });
    expect(gql).toContain(`?api_key='"$QBENCH_API_KEY"`);
    expect(curlLine({ method: 'GET', url: 'http://h/x', auth: 'header-bearer' }, 'MY_KEY')).toContain('"$MY_KEY"');
    const big = curlLine({ method: 'POST', url: 'http://h/run', auth: 'none', body: { kind: 'padded', bytes: 10_485_761 } });
    expect(big).toContain('head -c');
    expect(big.length).toBeLessThan(400);
  });
});
