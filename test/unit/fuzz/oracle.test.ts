// The fuzz oracle (src/fuzz/oracle.ts): what a conforming service must accept, must refuse,
// or may do either way, for job requests, /status?ttl, payload caps and templates.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EXECUTION_TIMEOUT_MS,
  JobRequest,
  RUN_PAYLOAD,
  RUNSYNC_PAYLOAD,
  RUNSYNC_WAIT_MS,
  TTL_MS,
  TemplateCreate,
} from '../../../src/spec/index.js';
import {
  agrees,
  classifyJobRequest,
  classifyPayload,
  classifyStatusTtl,
  classifyTemplateCreate,
  classifyTemplateUpdate,
} from '../../../src/fuzz/oracle.js';
import { jobRequestCase } from '../../../src/fuzz/queue-cases.js';
import { templateCreateBody, templateNames } from '../../../src/fuzz/template-cases.js';

const json = (value: unknown) => ({ kind: 'json' as const, value });
const noNames = { existing: new Set<string>() };

describe('oracle: job requests (§2.1, §4.1)', () => {
  it('accepts the policy bounds and refuses one step outside each', () => {
    for (const [field, b] of [['executionTimeout', EXECUTION_TIMEOUT_MS], ['ttl', TTL_MS]] as const) {
      for (const v of [b.min, b.max]) expect(classifyJobRequest({ operation: 'run', body: json({ input: {}, policy: { [field]: v } }) }).verdict).toBe('accept');
      for (const v of [b.min - 1, b.max + 1, b.min + 0.5]) {
        const e = classifyJobRequest({ operation: 'run', body: json({ input: {}, policy: { [field]: v } }) });
        expect(e.verdict).toBe('refuse');
        expect(e.verdict === 'refuse' && e.statuses).toEqual([400]);
      }
    }
  });

  it('refuses a missing or non-object input, malformed JSON and non-object bodies', () => {
    expect(classifyJobRequest({ operation: 'run', body: json({}) }).verdict).toBe('refuse');
    expect(classifyJobRequest({ operation: 'run', body: json({ input: [] }) }).verdict).toBe('refuse');
    expect(classifyJobRequest({ operation: 'run', body: json([{ input: {} }]) }).verdict).toBe('refuse');
    expect(classifyJobRequest({ operation: 'run', body: { kind: 'text', text: '{"input":', why: 'truncated' } }).verdict).toBe('refuse');
  });

  it('reads wait strictly at 1000 and 300000, leniently parsed text is ambiguous', () => {
    const at = (wait: string) => classifyJobRequest({ operation: 'runsync', body: json({ input: {} }), wait }).verdict;
    expect(at(String(RUNSYNC_WAIT_MS.min))).toBe('accept');
    expect(at(String(RUNSYNC_WAIT_MS.max))).toBe('accept');
    expect(at(String(RUNSYNC_WAIT_MS.min - 1))).toBe('refuse');
    expect(at(String(RUNSYNC_WAIT_MS.max + 1))).toBe('refuse');
    expect(at(`${RUNSYNC_WAIT_MS.min}ms`)).toBe('ambiguous');
    expect(at('abc')).toBe('refuse');
    expect(at('')).toBe('ambiguous');
  });

  it('calls null optional fields and non-http webhook URLs ambiguous, not refused', () => {
    expect(classifyJobRequest({ operation: 'run', body: json({ input: {}, webhook: null }) }).verdict).toBe('ambiguous');
    expect(classifyJobRequest({ operation: 'run', body: json({ input: {}, webhook: 'ftp://h.example.invalid/x' }) }).verdict).toBe('ambiguous');
    expect(classifyJobRequest({ operation: 'run', body: json({ input: {}, webhook: 'not a url' }) }).verdict).toBe('refuse');
    // A second, real problem still makes it a refusal.
    expect(classifyJobRequest({ operation: 'run', body: json({ webhook: null }) }).verdict).toBe('refuse');
  });

  it('agrees with the spec schema on every generated object body it does not call ambiguous', () => {
    fc.assert(
      fc.property(jobRequestCase, (c) => {
        const e = classifyJobRequest(c);
        if (e.verdict === 'ambiguous' || c.body.kind !== 'json') return;
        const schemaOk = typeof c.body.value === 'object' && c.body.value !== null && JobRequest.safeParse(c.body.value).success;
        if (!schemaOk) expect(e.verdict).toBe('refuse');
        if (e.verdict === 'accept') expect(schemaOk).toBe(true);
      }),
      { numRuns: 500, seed: 42 },
    );
  });
});

describe('oracle: /status?ttl (§4.1)', () => {
  it('accepts policy.ttl range, is ambiguous below 10 s and when the ttl has already run out', () => {
    expect(classifyStatusTtl({ ttl: String(TTL_MS.min) }, 0).verdict).toBe('accept');
    expect(classifyStatusTtl({ ttl: String(TTL_MS.max) }, 0).verdict).toBe('accept');
    expect(classifyStatusTtl({ ttl: String(TTL_MS.min - 1) }, 0).verdict).toBe('ambiguous');
    expect(classifyStatusTtl({ ttl: String(TTL_MS.max + 1) }, 0).verdict).toBe('refuse');
    expect(classifyStatusTtl({ ttl: '0' }, 0).verdict).toBe('refuse');
    expect(classifyStatusTtl({ ttl: String(TTL_MS.min) }, TTL_MS.min + 1).verdict).toBe('ambiguous');
  });
});

describe('oracle: payload caps (§4.1, §8)', () => {
  it('accepts up to the decimal reading, refuses past the binary one, ambiguous between', () => {
    for (const cap of [RUN_PAYLOAD, RUNSYNC_PAYLOAD]) {
      const operation = cap === RUN_PAYLOAD ? 'run' : 'runsync';
      const at = (bytes: number) => classifyPayload({ operation, body: { kind: 'padded', bytes } });
      expect(at(cap.decimalBytes).verdict).toBe('accept');
      expect(at(cap.decimalBytes + 1).verdict).toBe('ambiguous');
      expect(at(cap.binaryBytes).verdict).toBe('ambiguous');
      const over = at(cap.binaryBytes + 1);
      expect(over.verdict).toBe('refuse');
      expect(agrees(over, 413)).toBe(true);
      expect(agrees(over, 400)).toBe(true);
      expect(agrees(over, 200)).toBe(false);
    }
  });
});

describe('oracle: templates (§2.5)', () => {
  it('refuses duplicate names on create and renames onto another template on update', () => {
    const names = { existing: new Set(['a', 'b']) };
    expect(classifyTemplateCreate(json({ name: 'a', imageName: 'i' }), names).verdict).toBe('refuse');
    expect(classifyTemplateCreate(json({ name: 'c', imageName: 'i' }), names).verdict).toBe('accept');
    expect(classifyTemplateUpdate(json({ name: 'b' }), names, 'a').verdict).toBe('refuse');
    expect(classifyTemplateUpdate(json({ name: 'a' }), names, 'a').verdict).toBe('accept');
  });

  it('refuses create-only fields on update, bad ports and relative mount paths', () => {
    expect(classifyTemplateUpdate(json({ category: 'AMD' }), noNames, 'x').verdict).toBe('refuse');
    expect(classifyTemplateUpdate(json({ isServerless: true }), noNames, 'x').verdict).toBe('refuse');
    expect(classifyTemplateCreate(json({ name: 'n', imageName: 'i', ports: ['80/udp'] }), noNames).verdict).toBe('refuse');
    expect(classifyTemplateCreate(json({ name: 'n', imageName: 'i', ports: ['65535/tcp', '1/http'] }), noNames).verdict).toBe('accept');
    expect(classifyTemplateCreate(json({ name: 'n', imageName: 'i', ports: ['65536/tcp'] }), noNames).verdict).toBe('refuse');
    expect(classifyTemplateCreate(json({ name: 'n', imageName: 'i', volumeMountPath: 'workspace' }), noNames).verdict).toBe('refuse');
  });

  it('matches TemplateCreate on generated bodies (apart from duplicates and ambiguity)', () => {
    fc.assert(
      fc.property(templateCreateBody(templateNames('p')), (body) => {
        const e = classifyTemplateCreate(body, noNames);
        if (e.verdict === 'ambiguous' || body.kind !== 'json') return;
        expect(e.verdict === 'accept').toBe(TemplateCreate.safeParse(body.value).success);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});
