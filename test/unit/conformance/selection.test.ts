// Which checks a run takes, with no target: suite consistency (ids once, clauses known),
// selection by id, prefix and tag, unknown patterns, and the expectation file's validation.
import { describe, expect, it } from 'vitest';
import { parseExpectations, selectChecks, suiteProblems, unknownPatterns, type CheckDefinition, type Suite } from '../../../src/conformance/index.js';

const base = { interface: 'queue', kind: 'spec', tags: [], run: () => Promise.resolve(undefined) } as const;
const checks: CheckDefinition[] = [
  { ...base, id: 't.pass', title: 'pass', clauses: ['c/one'] },
  { ...base, id: 't.skip', title: 'skip', clauses: ['c/two'] },
  { ...base, id: 't.billable', title: 'billable', clauses: ['c/two'], tags: ['billable'] },
  { ...base, id: 't.slow', title: 'slow', clauses: ['c/two'], emulatedWaitMs: 30 * 60_000 },
];
const suite: Suite = {
  clauses: [
    { id: 'c/one', section: '§1', quote: 'rule one', observable: true },
    { id: 'c/two', section: '§2', quote: 'rule two', observable: true },
  ],
  checks,
};

describe('check selection', () => {
  it('finds a check defined twice or citing an unknown clause', () => {
    expect(suiteProblems(suite)).toEqual([]);
    expect(suiteProblems({ ...suite, checks: [...checks, { ...checks[0]!, clauses: ['c/none'] }] })).toEqual([
      'check t.pass is defined twice',
      'check t.pass cites unknown clause c/none',
    ]);
  });

  it('selects by id, prefix and tag, and reports unknown patterns', () => {
    expect(selectChecks(suite, { only: ['billable'] }).map((c) => c.id)).toEqual(['t.billable']);
    expect(selectChecks(suite, { only: ['t.s*'] }).map((c) => c.id)).toEqual(['t.skip', 't.slow']);
    expect(selectChecks(suite, { skip: ['t.*'] })).toEqual([]);
    expect(unknownPatterns(suite, ['t.pass', 'nope', 'billable'])).toEqual(['nope']);
  });

  it('validates expectation files, naming every problem, and drops expired entries', () => {
    expect(() => parseExpectations({ expectations: [{ id: '', verdict: 'maybe' }] }, 'x.json')).toThrow(/id must name a check[\s\S]*verdict must be one of[\s\S]*reason/);
    const e = parseExpectations({ expectations: [
      { id: 'a', verdict: 'fail', reason: 'r', expires: '2000-01-01' },
      { id: 'b', verdict: 'fail', reason: 'r', expires: '2999-01-01' },
    ] }, 'x.json', new Date('2026-01-01'));
    expect([...e.active.keys()]).toEqual(['b']);
    expect(e.expired.map((x) => x.id)).toEqual(['a']);
    expect(() => parseExpectations({ expectations: [{ id: 'a', verdict: 'fail', reason: 'r' }, { id: 'a', verdict: 'pass', reason: 'r' }] }, 'x.json')).toThrow(/listed twice/);
  });
});
