// The limits table against the numbers SERVICE-SPEC.md states (written out here, once, as
// the independent reading of the spec), and the §3.1 / §3.2 state tables.
import { describe, expect, it } from 'vitest';
import {
  CANCELLABLE_STATES,
  EXECUTION_TIMEOUT_MS,
  JOB_STATES,
  POD_TRANSITIONS,
  RATE_LIMITS,
  RATE_WINDOW_MS,
  RETENTION_MS,
  RETRYABLE_STATES,
  RUN_PAYLOAD,
  RUNSYNC_PAYLOAD,
  RUNSYNC_WAIT_MS,
  STREAM_CHUNK,
  TERMINAL_STATES,
  TRANSITIONS,
  TTL_MS,
  WEBHOOK,
  effectiveRateLimit,
  isTerminal,
  nextState,
  reachableByService,
} from '../../../src/spec/index.js';

describe('§2.1, §2.2, §4.1, §6, §8 limits', () => {
  it('durations, with their sections', () => {
    expect(EXECUTION_TIMEOUT_MS).toEqual({ defaultValue: 600000, min: 5000, max: 604800000, section: '§2.1' });
    expect(TTL_MS).toEqual({ defaultValue: 86400000, min: 10000, max: 604800000, section: '§2.1' });
    expect(RUNSYNC_WAIT_MS).toEqual({ defaultValue: 90000, min: 1000, max: 300000, section: '§4.1' });
    expect(RETENTION_MS).toEqual({ run: 1800000, runsyncDefault: 60000, runsyncMax: 300000, section: '§2.2' });
    expect(WEBHOOK).toMatchObject({ extraAttempts: 2, retryDelayMs: 10000, expectedStatus: 200, section: '§6' });
    expect(RATE_WINDOW_MS).toBe(10000);
  });

  it('payload caps and stream chunk in both MB readings', () => {
    expect([RUN_PAYLOAD.megabytes, RUN_PAYLOAD.decimalBytes, RUN_PAYLOAD.binaryBytes]).toEqual([10, 10_000_000, 10_485_760]);
    expect([RUNSYNC_PAYLOAD.megabytes, RUNSYNC_PAYLOAD.decimalBytes, RUNSYNC_PAYLOAD.binaryBytes]).toEqual([20, 20_000_000, 20_971_520]);
    expect([STREAM_CHUNK.megabytes, STREAM_CHUNK.decimalBytes, STREAM_CHUNK.binaryBytes]).toEqual([1, 1_000_000, 1_048_576]);
  });

  it('the §8 rate table, row by row', () => {
    const rows = Object.values(RATE_LIMITS).map((r) => [r.method, r.path, r.requestsPerWindow, r.concurrency]);
    expect(rows).toEqual([
      ['POST', '/runsync', 2000, 400],
      ['POST', '/run', 1000, 200],
      ['GET', '/status', 2000, 400],
      ['GET', '/stream', 2000, 400],
      ['POST', '/cancel', 100, 20],
      ['POST', '/purge-queue', 2, null],
      ['POST', '/openai/*', 2000, 400],
      ['GET', '/requests', 10, 2],
    ]);
    for (const [key, rule] of Object.entries(RATE_LIMITS)) {
      expect(rule.operation).toBe(key);
      expect(rule.section).toBe('§8');
    }
  });

  it('§8 dynamic rule: the higher of the base and workers * per-worker', () => {
    expect(effectiveRateLimit(1000, 0, 100)).toBe(1000);
    expect(effectiveRateLimit(1000, 10, 100)).toBe(1000);
    expect(effectiveRateLimit(1000, 11, 100)).toBe(1100);
  });
});

describe('§3.1 job state machine', () => {
  it('six states; four terminal', () => {
    expect(JOB_STATES).toEqual(['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);
    expect([...TERMINAL_STATES].sort()).toEqual(['CANCELLED', 'COMPLETED', 'FAILED', 'TIMED_OUT']);
    expect(isTerminal('IN_PROGRESS')).toBe(false);
  });

  it('retry only from FAILED or TIMED_OUT, back to IN_QUEUE', () => {
    expect([...RETRYABLE_STATES].sort()).toEqual(['FAILED', 'TIMED_OUT']);
    for (const s of JOB_STATES) expect(nextState(s, 'retry')).toBe(RETRYABLE_STATES.has(s) ? 'IN_QUEUE' : undefined);
  });

  it('cancel from IN_QUEUE or IN_PROGRESS to CANCELLED; purge deletes queued jobs only', () => {
    expect([...CANCELLABLE_STATES].sort()).toEqual(['IN_PROGRESS', 'IN_QUEUE']);
    for (const s of JOB_STATES) expect(nextState(s, 'cancel')).toBe(CANCELLABLE_STATES.has(s) ? 'CANCELLED' : undefined);
    for (const s of JOB_STATES) expect(nextState(s, 'purge')).toBe(s === 'IN_QUEUE' ? 'deleted' : undefined);
  });

  it('ttl deletes a job in any state; run starts IN_QUEUE', () => {
    for (const s of JOB_STATES) expect(nextState(s, 'ttl-expired')).toBe('deleted');
    expect(nextState(null, 'run')).toBe('IN_QUEUE');
    expect(nextState(null, 'runsync')).toBe('COMPLETED');
  });

  it('the table is a function: no (from, trigger) pair appears twice', () => {
    const keys = TRANSITIONS.map((t) => `${t.from ?? '-'}:${t.trigger}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('terminal states leave only by client action or ttl; service moves IN_QUEUE onwards', () => {
    for (const s of TERMINAL_STATES) expect([...reachableByService(s)].sort()).toEqual([s, 'deleted'].sort());
    expect(reachableByService('IN_QUEUE')).toEqual(new Set(['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'TIMED_OUT', 'deleted']));
  });
});

describe('§3.2 pod states', () => {
  it('resume (on-demand or spot) to RUNNING, stop to EXITED', () => {
    expect(POD_TRANSITIONS.map((t) => [t.from, t.trigger, t.to])).toEqual([
      ['EXITED', 'podResume', 'RUNNING'],
      ['EXITED', 'podBidResume', 'RUNNING'],
      ['RUNNING', 'podStop', 'EXITED'],
    ]);
  });
});
