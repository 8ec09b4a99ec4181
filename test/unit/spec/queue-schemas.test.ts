// Boundary tests of the queue-endpoint schemas (§2.1-§2.4, §4.1, WIRE-COMPAT): each range
// accepts both ends and rejects the value just outside; each rule rejects what it forbids.
import { describe, expect, it } from 'vitest';
import {
  ASYNC_ID_PATTERN,
  CancelAnswer,
  ErrorBody,
  EXECUTION_TIMEOUT_MS,
  HealthRecord,
  JobRecord,
  JobRequest,
  JOB_STATES,
  Policy,
  PurgeAnswer,
  RetryAnswer,
  RunAnswer,
  RUNSYNC_WAIT_MS,
  StatusTtlMs,
  StatusTtlQuery,
  StreamAnswer,
  StreamChunk,
  SYNC_ID_PATTERN,
  TTL_MS,
  WaitMs,
  WaitQuery,
  applyPolicyDefaults,
} from '../../../src/spec/index.js';
import { bad, ok, problems } from './schema-assert.js';


describe('§2.1 policy bounds', () => {
  it('executionTimeout: 5000 and 604800000 accepted, 4999 and 604800001 rejected', () => {
    // The literal spec values, checked against the limits table.
    expect([EXECUTION_TIMEOUT_MS.min, EXECUTION_TIMEOUT_MS.max]).toEqual([5000, 604800000]);
    ok(Policy, { executionTimeout: EXECUTION_TIMEOUT_MS.min });
    ok(Policy, { executionTimeout: EXECUTION_TIMEOUT_MS.max });
    bad(Policy, { executionTimeout: EXECUTION_TIMEOUT_MS.min - 1 });
    bad(Policy, { executionTimeout: EXECUTION_TIMEOUT_MS.max + 1 });
    bad(Policy, { executionTimeout: EXECUTION_TIMEOUT_MS.min + 0.5 });
    bad(Policy, { executionTimeout: String(EXECUTION_TIMEOUT_MS.min) });
    expect(problems(Policy, { executionTimeout: 4999 })).toContain('policy.executionTimeout must be at least 5000 ms');
  });

  it('ttl: 10000 and 604800000 accepted, 9999 and 604800001 rejected', () => {
    expect([TTL_MS.min, TTL_MS.max]).toEqual([10000, 604800000]);
    ok(Policy, { ttl: TTL_MS.min });
    ok(Policy, { ttl: TTL_MS.max });
    bad(Policy, { ttl: TTL_MS.min - 1 });
    bad(Policy, { ttl: TTL_MS.max + 1 });
    bad(Policy, { ttl: -1 });
    expect(problems(Policy, { ttl: 9999 })).toContain('policy.ttl must be at least 10000 ms');
  });

  it('lowPriority is a boolean', () => {
    ok(Policy, { lowPriority: true });
    ok(Policy, { lowPriority: false });
    bad(Policy, { lowPriority: 'true' });
    bad(Policy, { lowPriority: 1 });
  });

  it('defaults: 600000 ms, false, 86400000 ms; given values win', () => {
    expect(applyPolicyDefaults(undefined)).toEqual({ executionTimeout: 600000, lowPriority: false, ttl: 86400000 });
    expect(applyPolicyDefaults({ ttl: TTL_MS.min, lowPriority: true })).toEqual({ executionTimeout: EXECUTION_TIMEOUT_MS.defaultValue, lowPriority: true, ttl: TTL_MS.min });
  });
});

describe('§2.1 job request body', () => {
  it('input is a required JSON object', () => {
    ok(JobRequest, { input: {} });
    ok(JobRequest, { input: { prompt: 'x', nested: [1, { a: null }] } });
    bad(JobRequest, {});
    for (const input of [null, [], 'text', 3, true]) bad(JobRequest, { input });
    expect(problems(JobRequest, {})).toContain('input');
  });

  it('webhook is an absolute http(s) URL', () => {
    ok(JobRequest, { input: {}, webhook: 'https://example.com/hook?x=1' });
    ok(JobRequest, { input: {}, webhook: 'http://127.0.0.1:9000/h' });
    for (const webhook of ['not a url', '/relative', 'ftp://example.com/x', 'javascript:alert(1)', '', 42]) bad(JobRequest, { input: {}, webhook });
  });

  it('s3Config fields are strings', () => {
    ok(JobRequest, { input: {}, s3Config: { accessId: 'a', accessSecret: 's', bucketName: 'b', endpointUrl: 'https://s3.example' } });
    bad(JobRequest, { input: {}, s3Config: { accessId: 1 } });
    bad(JobRequest, { input: {}, s3Config: 'bucket' });
  });

  it('reports every problem at once', () => {
    const text = problems(JobRequest, { input: [], webhook: 'nope', policy: { executionTimeout: 1, ttl: 1 } });
    for (const field of ['input', 'webhook', 'policy.executionTimeout', 'policy.ttl']) expect(text).toContain(field);
  });
});

describe('§4.1 query parameters', () => {
  it('wait: 1000 and 300000 accepted, 999 and 300001 rejected, default 90000', () => {
    expect([RUNSYNC_WAIT_MS.min, RUNSYNC_WAIT_MS.max, RUNSYNC_WAIT_MS.defaultValue]).toEqual([1000, 300000, 90000]);
    expect(WaitQuery.parse(String(RUNSYNC_WAIT_MS.min))).toBe(RUNSYNC_WAIT_MS.min);
    expect(WaitQuery.parse(String(RUNSYNC_WAIT_MS.max))).toBe(RUNSYNC_WAIT_MS.max);
    for (const v of [RUNSYNC_WAIT_MS.min - 1, RUNSYNC_WAIT_MS.max + 1]) {
      bad(WaitQuery, String(v));
      bad(WaitMs, v);
    }
    ok(WaitMs, RUNSYNC_WAIT_MS.min);
    ok(WaitMs, RUNSYNC_WAIT_MS.max);
    expect(problems(WaitQuery, '999')).toContain('wait must be at least 1000 ms');
  });

  it('query integers are digits only', () => {
    for (const v of ['1e3', '12abc', '', ' 1000', '1000.0', '0x3e8', '+1000']) bad(WaitQuery, v);
  });

  it('ttl query: 1 ms to 7 days (README: the spec example 6000 lies below the policy minimum)', () => {
    ok(StatusTtlQuery, '6000');
    ok(StatusTtlQuery, '1');
    ok(StatusTtlQuery, String(TTL_MS.max));
    bad(StatusTtlQuery, '0');
    bad(StatusTtlQuery, String(TTL_MS.max + 1));
    bad(StatusTtlQuery, '-6000');
    ok(StatusTtlMs, TTL_MS.max);
    bad(StatusTtlMs, 0);
  });
});

describe('§2.2 job record and §4.1 answers', () => {
  it('accepts every job state and the WIRE-COMPAT extras; rejects unknown states', () => {
    for (const status of JOB_STATES) ok(JobRecord, { id: 'j', status });
    ok(JobRecord, { id: 'j', status: 'FAILED', error: 'boom', workerId: 'w-1', delayTime: 0, executionTime: 12, output: [1, 2] });
    ok(JobRecord, { id: 'j', status: 'IN_PROGRESS', output: { progress: 0.5 } });
    bad(JobRecord, { id: 'j', status: 'DONE' });
    bad(JobRecord, { id: 'j', status: 'completed' });
    bad(JobRecord, { status: 'COMPLETED' });
    bad(JobRecord, { id: 'j', status: 'COMPLETED', delayTime: 1.5 });
    bad(JobRecord, { id: 'j', status: 'FAILED', error: { message: 'x' } });
  });

  it('run/retry answer IN_QUEUE, cancel answers CANCELLED, purge answers lowercase completed', () => {
    ok(RunAnswer, { id: 'a', status: 'IN_QUEUE' });
    bad(RunAnswer, { id: 'a', status: 'IN_PROGRESS' });
    ok(RetryAnswer, { id: 'a', status: 'IN_QUEUE' });
    bad(RetryAnswer, { id: 'a', status: 'FAILED' });
    ok(CancelAnswer, { id: 'a', status: 'CANCELLED' });
    bad(CancelAnswer, { id: 'a', status: 'IN_QUEUE' });
    ok(PurgeAnswer, { removed: 0, status: 'completed' });
    bad(PurgeAnswer, { removed: 0, status: 'COMPLETED' });
    bad(PurgeAnswer, { removed: -1, status: 'completed' });
    bad(PurgeAnswer, { removed: 1.5, status: 'completed' });
  });

  it('sync ids are sync-<uuid>; async ids are a uuid with an optional suffix', () => {
    const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect(SYNC_ID_PATTERN.test(`sync-${uuid}`)).toBe(true);
    expect(SYNC_ID_PATTERN.test(uuid)).toBe(false);
    expect(SYNC_ID_PATTERN.test(`sync-${uuid}-x`)).toBe(false);
    expect(ASYNC_ID_PATTERN.test(uuid)).toBe(true);
    expect(ASYNC_ID_PATTERN.test(`${uuid}-u1`)).toBe(true);
    expect(ASYNC_ID_PATTERN.test('job-1')).toBe(false);
  });
});

describe('§2.3 stream answers', () => {
  const metrics = {
    avg_gen_throughput: 12.5, avg_prompt_throughput: 3, cpu_kv_cache_usage: 0, gpu_kv_cache_usage: 0.25,
    input_tokens: 10, output_tokens: 4, pending: 0, running: 1, swapped: 0, stream_index: 2, scenario: 'stream',
  };

  it('accepts the WIRE-COMPAT object form and the §4.1 bare array', () => {
    ok(StreamAnswer, { status: 'IN_PROGRESS', stream: [{ output: { input_tokens: 1, output_tokens: 1, text: ['a'] }, metrics }] });
    ok(StreamAnswer, { status: 'COMPLETED', stream: [] });
    ok(StreamAnswer, [{ output: { text: ['a'] } }]);
    ok(StreamAnswer, []);
    bad(StreamAnswer, { status: 'COMPLETED' });
    bad(StreamAnswer, { status: 'DONE', stream: [] });
    bad(StreamAnswer, 'chunk');
  });

  it('metrics: numbers, integers and scenario typed as §2.3 says', () => {
    ok(StreamChunk, { output: {}, metrics });
    bad(StreamChunk, { output: {}, metrics: { ...metrics, stream_index: 1.5 } });
    bad(StreamChunk, { output: {}, metrics: { ...metrics, pending: '0' } });
    bad(StreamChunk, { output: {}, metrics: { ...metrics, avg_gen_throughput: 'fast' } });
    bad(StreamChunk, { output: {}, metrics: { ...metrics, scenario: 1 } });
  });
});

describe('§2.4 health record', () => {
  const jobs = { completed: 1, failed: 0, inProgress: 2, inQueue: 3, retried: 0 };
  it('requires every jobs and workers count; takes the older worker fields', () => {
    ok(HealthRecord, { jobs, workers: { idle: 0, running: 0 } });
    ok(HealthRecord, { jobs, workers: { idle: 1, running: 2, initializing: 0, ready: 1, throttled: 0, unhealthy: 0 } });
    for (const k of Object.keys(jobs)) {
      const partial: Record<string, number> = { ...jobs };
      delete partial[k];
      bad(HealthRecord, { jobs: partial, workers: { idle: 0, running: 0 } });
    }
    bad(HealthRecord, { jobs, workers: { idle: 0 } });
    bad(HealthRecord, { jobs: { ...jobs, inQueue: -1 }, workers: { idle: 0, running: 0 } });
    bad(HealthRecord, { jobs, workers: { idle: 0, running: 0, throttled: 0.5 } });
  });
});

describe('WIRE-COMPAT error body', () => {
  it('is an object with an error string', () => {
    ok(ErrorBody, { error: 'job not found' });
    bad(ErrorBody, { message: 'x' });
    bad(ErrorBody, { error: 404 });
  });
});
