// The generated reference pages (src/docs/reference.ts): each committed file under
// docs/reference/ is exactly what its declarations render now, so a changed option, exit code,
// fault or config key fails here until `npm run docs` is run and its output committed. Every
// example command line of cli.md is parsed by the CLI (QBENCH_PARSE_ONLY=1: options, config
// file and target grammar checked, nothing run).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { main, PARSE_ONLY_ENV } from '../../../src/cli/main.js';
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

/** The words of a shell command line up to its first pipe or redirection, quotes removed. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) {
    const bare = m[3];
    if (bare === '|' || bare === '>' || bare === '>>') break;
    words.push(m[1] ?? m[2] ?? bare ?? '');
  }
  return words;
}

describe('cli.md examples', async () => {
  const cliMd = (await committed('docs/reference/cli.md')) ?? '';
  const examples = [...cliMd.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => (m[1] ?? '').split('\n').filter((l) => l.startsWith('qbench ')));

  it('has examples', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(examples)('%s parses', async (line) => {
    let text = '';
    const io = { stdout: (t: string) => void (text += t), stderr: (t: string) => void (text += t), isTty: false, env: { [PARSE_ONLY_ENV]: '1' }, signal: new AbortController().signal };
    const code = await main(shellWords(line).slice(1), io);
    expect(code, text).toBe(0);
  });
});
