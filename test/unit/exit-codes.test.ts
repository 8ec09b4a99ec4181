// The exit codes (src/exit-codes.ts): the README's short table quotes them as they are (the full
// table is generated into docs/reference/exit-codes.md), the classes of failure are distinct, and
// every error code maps to a documented exit code.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT, EXIT_DESCRIPTIONS } from '../../src/exit-codes.js';
import { ERROR_CODES } from '../../src/errors.js';

describe('exit codes', () => {
  it('the README table quotes codes and meanings of src/exit-codes.ts as they are, pass and failure among them', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const rows = [...readme.matchAll(/^\|\s*(\d+)\s*\|\s*(.+?)\s*\|$/gm)].map((m) => [Number(m[1]), m[2]] as const);
    expect(rows.map(([code]) => code)).toEqual(expect.arrayContaining([EXIT.OK, EXIT.TARGET_FAILED, EXIT.INVALID_MEASUREMENT]));
    for (const [code, meaning] of rows) expect(meaning, `exit ${code}`).toBe(EXIT_DESCRIPTIONS[code as keyof typeof EXIT_DESCRIPTIONS]);
  });

  it('target failure, usage and internal failure are distinct codes', () => {
    expect(new Set([EXIT.OK, EXIT.TARGET_FAILED, EXIT.USAGE, EXIT.INTERNAL]).size).toBe(4);
    expect(EXIT.INTERNAL).toBeGreaterThanOrEqual(3);
  });

  it('every error code maps to a documented exit code', () => {
    for (const { exit } of Object.values(ERROR_CODES)) expect(EXIT_DESCRIPTIONS[exit]).toBeTruthy();
  });
});
