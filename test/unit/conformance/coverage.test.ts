// The suite's wiring: every cited clause exists, every observable clause has a check, every
// fault of the emulator's catalogue has checks citing its clause, and docs/coverage-matrix.md
// is the generator's output (regenerate with `npm run qbench -- check --coverage-matrix docs/coverage-matrix.md`).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildCoverage, checksForSection, renderCoverageMarkdown, suiteProblems, uncoveredObservable } from '../../../src/conformance/index.js';
import { FAULTS, FAULT_NAMES } from '../../../src/emulator/faults.js';
import { conformanceSuite } from '../../../suites/conformance/index.js';

describe('conformance suite coverage', () => {
  it('cites only known clauses and has unique ids', () => {
    expect(suiteProblems(conformanceSuite)).toEqual([]);
  });

  it('leaves no observable clause without a check, and gives every other one a reason', () => {
    expect(uncoveredObservable(conformanceSuite)).toEqual([]);
    for (const row of buildCoverage(conformanceSuite)) {
      if (row.checkIds.length === 0) expect(row.uncoveredReason?.length ?? 0).toBeGreaterThan(20);
    }
  });

  it('covers every section of the spec that states a rule', () => {
    const sections = new Set(conformanceSuite.clauses.map((c) => c.section));
    for (const s of ['§2.1', '§2.2', '§2.3', '§2.4', '§2.5', '§2.6', '§2.7', '§3.1', '§3.2', '§4.1', '§4.2', '§4.3', '§5', '§6', '§7', '§8', '§9']) {
      expect(sections.has(s), s).toBe(true);
    }
  });

  it('has checks citing the clause of every emulator fault', () => {
    const missing = FAULT_NAMES.filter((f) => checksForSection(conformanceSuite, FAULTS[f].clause).length === 0);
    expect(missing).toEqual([]);
  });

  it('keeps docs/coverage-matrix.md in sync with the suite', async () => {
    const onDisk = await readFile(new URL('../../../docs/coverage-matrix.md', import.meta.url), 'utf8');
    expect(onDisk).toBe(renderCoverageMarkdown(conformanceSuite));
  });

  it('tags every compat check compat and cites WIRE-COMPAT only from them', () => {
    const byId = new Map(conformanceSuite.clauses.map((c) => [c.id, c]));
    for (const ch of conformanceSuite.checks) {
      const primary = byId.get(ch.clauses[0]);
      if (ch.kind === 'compat') expect(primary?.section, ch.id).toBe('WIRE-COMPAT');
      else expect(primary?.section, ch.id).not.toBe('WIRE-COMPAT');
    }
  });
});
