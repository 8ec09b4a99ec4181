// The docs' code blocks as a reader copies them: each `ts` block of README.md, docs/ and
// bench/README.md is committed as test/docs-blocks/<page>-<n>.ts (src/docs/code-blocks.ts), which
// the type check of `npm test` compiles against the package's own entries; this test fails when a
// committed file differs from its block (run `npm run docs`). Each `json` block parses and, where
// its page says what it is, passes the schema that file is read with. (The shell blocks run in
// test/integration/package/installed.test.ts, against the installed package.)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_BLOCKS_DIR, docBlocks, renderDocBlocks } from '../../../src/docs/code-blocks.js';
import { EmulatorConfigSchema } from '../../../src/emulator/config.js';
import { TrafficProfile } from '../../../src/sim/traffic.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

interface Schema {
  safeParse(v: unknown): { success: boolean; error?: unknown };
}

/** What a JSON block on a page is read as; pages not listed hold JSON that is not qbench's to check (an editor's settings). */
const JSON_SCHEMAS: Readonly<Record<string, { schema: Schema; as: (v: unknown) => unknown }>> = {
  // An --emulator-config file: the CLI adds the key from the environment before the schema reads it.
  'docs/reference/emulator.md': { schema: EmulatorConfigSchema, as: (v) => ({ apiKey: 'docs-example-key', ...(v as object) }) },
  'docs/reference/traffic-profiles.md': { schema: TrafficProfile, as: (v) => v },
};

describe('docs code blocks', () => {
  const rendered = renderDocBlocks(ROOT);

  it('there are TypeScript examples: a scenario, a config file, a handler, a client', () => {
    expect([...rendered.keys()]).toEqual(expect.arrayContaining([
      `${DOC_BLOCKS_DIR}/docs-guides-write-a-scenario-1.ts`, `${DOC_BLOCKS_DIR}/docs-guides-config-file-1.ts`,
      `${DOC_BLOCKS_DIR}/docs-guides-handler-and-worker-1.ts`, `${DOC_BLOCKS_DIR}/docs-reference-api-1.ts`,
    ]));
  });

  it('each ts block is committed as the file the type check compiles, and no other file is there', () => {
    const differ = [...rendered].filter(([file, text]) => !existsSync(path.join(ROOT, file)) || readFileSync(path.join(ROOT, file), 'utf8') !== text).map(([f]) => f);
    expect(differ, 'run `npm run docs` and commit the result').toEqual([]);
    const extra = readdirSync(path.join(ROOT, DOC_BLOCKS_DIR)).map((f) => `${DOC_BLOCKS_DIR}/${f}`).filter((f) => !rendered.has(f));
    expect(extra, 'run `npm run docs` and commit the result').toEqual([]);
  });

  it.each(docBlocks(ROOT, 'json').map((b) => [`${b.page}:${b.line}`, b] as const))('json block %s parses and passes its schema', (_where, b) => {
    const value: unknown = JSON.parse(b.code);
    const known = JSON_SCHEMAS[b.page];
    if (known) expect(known.schema.safeParse(known.as(value)).error).toBeUndefined();
  });
});
