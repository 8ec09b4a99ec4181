// The exit codes (src/exit-codes.ts): the README's table lists exactly them, the classes of
// failure are distinct, and every error code maps to a documented exit code.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT, EXIT_DESCRIPTIONS } from '../../src/exit-codes.js';
import { ERROR_CODES } from '../../src/errors.js';

describe('exit codes', () => {
  it('README table lists exactly the codes and meanings of src/exit-codes.ts', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.split('## Exit codes')[1]?.split('\n## ')[0] ?? '';
    const rows = [...section.matchAll(/^\|\s*(\d+)\s*\|\s*(.+?)\s*\|$/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(rows).toEqual(Object.entries(EXIT_DESCRIPTIONS).map(([k, v]) => [Number(k), v]));
  });

  it('target failure, usage and internal failure are distinct codes', () => {
    expect(new Set([EXIT.OK, EXIT.TARGET_FAILED, EXIT.USAGE, EXIT.INTERNAL]).size).toBe(4);
    expect(EXIT.INTERNAL).toBeGreaterThanOrEqual(3);
  });

  it('every error code maps to a documented exit code', () => {
    for (const { exit } of Object.values(ERROR_CODES)) expect(EXIT_DESCRIPTIONS[exit]).toBeTruthy();
  });
});
