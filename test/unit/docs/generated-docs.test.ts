// The generated reference pages (src/docs/reference.ts): each committed file under
// docs/reference/ is exactly what its declarations render now, so a changed option, exit code,
// fault or config key fails here until `npm run docs` is run and its output committed.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { DOCS_COMMAND, REFERENCE_FILES } from '../../../src/docs/reference.js';

const root = new URL('../../../', import.meta.url);

async function committed(file: string): Promise<string | undefined> {
  try {
    return await readFile(new URL(file, root), 'utf8');
  } catch {
    return undefined;
  }
}

describe('generated reference docs', () => {
  it.each(Object.keys(REFERENCE_FILES))('%s is what its declarations render', async (file) => {
    const rendered = await REFERENCE_FILES[file]!();
    const onDisk = await committed(file);
    expect(onDisk, `${file} is missing: run \`${DOCS_COMMAND}\` and commit it`).toBeDefined();
    expect(onDisk === rendered, `${file} differs from what the code declares: run \`${DOCS_COMMAND}\` and commit the result`).toBe(true);
  });

  it('renders the same text twice (no timestamps, stable order)', async () => {
    for (const render of Object.values(REFERENCE_FILES)) expect(await render()).toBe(await render());
  });

  it('the config schema is a JSON Schema of an object that refuses unknown keys', async () => {
    const schema = JSON.parse(await REFERENCE_FILES['docs/reference/qbench.config.schema.json']!()) as Record<string, unknown>;
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema['type']).toBe('object');
    expect(schema['additionalProperties']).toBe(false);
    expect(Object.keys(schema['properties'] as object)).toEqual(expect.arrayContaining(['targets', 'conformance', 'load', 'fuzz', 'emulator', 'reportDir']));
  });
});
