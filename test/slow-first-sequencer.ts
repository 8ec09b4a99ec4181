// Test file order: the files that take minutes start first, so that on a fresh clone (no vitest
// results cache to order by) none of them starts last and stretches the run past the others.
// The rest keep vitest's own order (cached durations, else file size).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The slowest files, slowest first (seconds on 2 cores, nothing else running: ~185, ~80, ~70, ~65, ~55, ~40). */
export const SLOW_FIRST = [
  'test/integration/conformance/border.test.ts',
  'test/integration/conformance/faulty-path.test.ts',
  'test/integration/package/installed.test.ts',
  'test/integration/conformance/border-faults.test.ts',
  'test/integration/conformance/clean-emulator.test.ts',
  'test/integration/conformance/busy-opaque.test.ts',
];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((p) => f.moduleId.replaceAll('\\', '/').endsWith(p));
      return i === -1 ? SLOW_FIRST.length : i;
    };
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map((x) => x.f);
  }
}
