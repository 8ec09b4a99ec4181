// The committed JSON Schema files match the zod models; results round-trip through JSON.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILES } from '../../../src/result/schema.js';
import { QbenchResult } from '../../../src/result/model.js';
import { sampleResult } from './sample-result.js';

describe('JSON Schema files', () => {
  for (const [name, make] of Object.entries(SCHEMA_FILES)) {
    it(`reports/schema/${name} is up to date (regenerate with: npm run schema)`, async () => {
      const committed = await readFile(new URL(`../../../reports/schema/${name}`, import.meta.url), 'utf8').catch(() => '(missing)');
      expect(committed, `reports/schema/${name} is stale: run npm run schema and commit it`).toBe(make());
    });
  }

  it('a result survives a JSON round trip unchanged', () => {
    const r = sampleResult({ withConformanceFailure: true, withFuzzFailure: true, samples: 300 });
    expect(QbenchResult.parse(JSON.parse(JSON.stringify(r)))).toEqual(r);
  });
});
