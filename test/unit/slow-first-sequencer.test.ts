// The slow-first list names files that exist: a renamed slow file would silently lose its place.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SLOW_FIRST } from '../slow-first-sequencer.js';

describe('SLOW_FIRST', () => {
  it('names test files that exist', () => {
    expect(SLOW_FIRST.filter((f) => !existsSync(f))).toEqual([]);
  });
});
