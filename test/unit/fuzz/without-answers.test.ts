// A fuzz property passes only on HTTP answers: a pass none of whose requests got one (the
// target went away after the preflight; a dropped connection can count as "refused") becomes
// an error naming the network failure.
import { describe, expect, it } from 'vitest';
import { withoutAnswers } from '../../../src/fuzz/runner.js';
import type { FuzzProperty } from '../../../src/result/model.js';

const pass: FuzzProperty = { name: 'payload-caps', clause: { section: '§8', quote: 'q' }, kind: 'validation', status: 'pass', runs: 8, durationMs: 10 };

describe('withoutAnswers', () => {
  it('turns a pass with requests but no answer into an error', () => {
    const r = withoutAnswers(pass, 8, 0, 'SocketError: other side closed');
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/none of its 8 requests got an HTTP answer \(SocketError: other side closed\)/);
  });

  it('keeps a pass with at least one answer, a pass that sent nothing, and any failure', () => {
    expect(withoutAnswers(pass, 8, 1, undefined)).toBe(pass);
    expect(withoutAnswers(pass, 0, 0, undefined)).toBe(pass);
    const fail: FuzzProperty = { ...pass, status: 'fail' };
    expect(withoutAnswers(fail, 8, 0, 'x')).toBe(fail);
  });
});
