// The shipped scenarios' sorting of setup failures from violations (suites/load/lib/verdict.ts):
// an unmet precondition makes broken rules unjudged (inconclusive) unless the scenario saw a
// violation no missing precondition explains; with every precondition met a broken rule fails.
import { describe, expect, it } from 'vitest';
import { foreignRequests, precondition, setupNote, statusOf } from '../../../suites/load/lib/verdict.js';

const rule = (passed: boolean) => ({ label: 'most admitted in a window', clause: '§8', expected: '100', observed: passed ? '100' : '60', passed });
const alone = (met: boolean) => precondition('the /run rate windows were this scenario\'s alone', 'no /run requests from others', met ? 'none' : '40 /run requests this scenario did not send', met);

describe('statusOf', () => {
  it('every precondition met: a broken rule fails, none passes', () => {
    expect(statusOf([alone(true), rule(false)])).toBe('fail');
    expect(statusOf([alone(true), rule(true)])).toBe('pass');
  });

  it('a precondition unmet: inconclusive, whatever the rules, unless a violation is seen anyway', () => {
    expect(statusOf([alone(false), rule(false)])).toBe('inconclusive');
    expect(statusOf([alone(false), rule(true)])).toBe('inconclusive');
    expect(statusOf([alone(false), rule(false)], true)).toBe('fail');
  });
});

describe('setupNote', () => {
  it('names every unmet precondition with what was observed, only for an inconclusive status', () => {
    const findings = [alone(false), rule(false), precondition('answers fast enough', 'narrow', 'between 50 and 107', false)];
    expect(setupNote('inconclusive', findings)).toBe('could not set up: the /run rate windows were this scenario\'s alone: 40 /run requests this scenario did not send; answers fast enough: between 50 and 107; ');
    expect(setupNote('fail', findings)).toBe('');
  });
});

describe('foreignRequests', () => {
  it('what the target counted beyond what the scenario sent, never below zero', () => {
    const at = (seen: number) => ({ seen, inWindow: 0, inFlight: 0 });
    expect(foreignRequests(at(10), at(135), 100)).toBe(25);
    expect(foreignRequests(at(10), at(100), 100)).toBe(0);
  });
});
