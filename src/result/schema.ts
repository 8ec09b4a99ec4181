// JSON Schema of the versioned models, generated from the zod schemas and committed
// under reports/schema/; `npm run schema` rewrites the files, a test fails when they are stale.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { QbenchComparison } from './compare-model.js';
import { QbenchResult, SCHEMA_VERSION } from './model.js';

export const SCHEMA_FILES = {
  'qbench-result.schema.json': () => toSchema(QbenchResult, 'qbench result', 'One run of qbench: conformance, load and fuzz results and the overall verdict.'),
  'qbench-comparison.schema.json': () => toSchema(QbenchComparison, 'qbench comparison', 'qbench compare: a candidate run against a baseline.'),
} as const;

function toSchema(schema: z.ZodType, title: string, description: string): string {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;
  const out = { ...json, title, description, 'x-qbench-schema-version': SCHEMA_VERSION };
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** Write every schema file into `dir` (default reports/schema); resolve to the paths written. */
export async function writeSchemas(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [name, make] of Object.entries(SCHEMA_FILES)) {
    const file = path.join(dir, name);
    await writeFile(file, make());
    written.push(file);
  }
  return written;
}
