// Generated /run and /runsync requests (§2.1 body, §4.1 `wait` and /status `ttl` queries,
// §4.1/§8 payload caps), derived from the bounds in src/spec: policy values at and around
// every bound, wrong types, missing and extra fields, webhook URLs valid and not, s3Config
// shapes, malformed JSON, and bodies around both readings of the payload caps.
import fc from 'fast-check';
import { EXECUTION_TIMEOUT_MS, RUNSYNC_WAIT_MS, TTL_MS, RUN_PAYLOAD, RUNSYNC_PAYLOAD } from '../spec/index.js';
import type { ByteSize } from '../spec/index.js';
import { ABSENT, maybe, objectOf, type CaseBody, type Absent } from './case-body.js';
import {
  fractionalInRange,
  intAroundBounds,
  queryIntAroundBounds,
  wrongTypeForBoolean,
  wrongTypeForInt,
  wrongTypeForObject,
  wrongTypeForString,
} from './edge-values.js';

export type JobOperation = 'run' | 'runsync';

export interface JobRequestCase {
  readonly operation: JobOperation;
  readonly body: CaseBody;
  /** Raw `wait` query value (runsync only); absent when not sent. */
  readonly wait?: string;
}

export interface StatusTtlCase {
  /** Raw `ttl` query value of GET /status/{id}. */
  readonly ttl: string;
}

export interface PayloadCase {
  readonly operation: JobOperation;
  readonly body: Extract<CaseBody, { kind: 'padded' }>;
}

/**
 * Handler input. Keys never start with `mock_` (the mock worker obeys those: a fuzz job must
 * not crash or stall a worker), so accepted jobs finish at once.
 */
export const handlerInput: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(
  fc.constantFrom('prompt', 'n', 'text', 'temperature', 'tags'),
  fc.jsonValue({ maxDepth: 1 }),
  { maxKeys: 3 },
);

/** Webhook URLs on the reserved `.invalid` TLD (RFC 6761): valid syntax, never delivered anywhere. */
const validWebhook = fc.constantFrom(
  'https://qbench-fuzz.example.invalid/hook',
  'http://qbench-fuzz.example.invalid:8080/hook?job=1',
  'https://user@qbench-fuzz.example.invalid/a/b#frag',
);
const invalidWebhook = fc.oneof(
  fc.constantFrom('not a url', '', 'qbench-fuzz.example.invalid/hook', '//qbench-fuzz.example.invalid/hook', 'http//x', 'https://'),
  fc.constantFrom('ftp://qbench-fuzz.example.invalid/hook', 'mailto:hook@qbench-fuzz.example.invalid', 'file:///etc/hook'),
  wrongTypeForString,
  fc.constant(null),
);

const policyField = <T>(valid: fc.Arbitrary<T>, wrong: fc.Arbitrary<unknown>) =>
  maybe(fc.oneof({ weight: 8, arbitrary: valid }, { weight: 2, arbitrary: wrong }), 6);

const policy: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc
      .record({
        executionTimeout: policyField(intAroundBounds(EXECUTION_TIMEOUT_MS), fc.oneof(fractionalInRange(EXECUTION_TIMEOUT_MS), wrongTypeForInt(EXECUTION_TIMEOUT_MS), fc.constant(null))),
        lowPriority: policyField(fc.boolean(), fc.oneof(wrongTypeForBoolean, fc.constant(null))),
        ttl: policyField(intAroundBounds(TTL_MS), fc.oneof(fractionalInRange(TTL_MS), wrongTypeForInt(TTL_MS), fc.constant(null))),
        extraPolicyField: maybe(fc.constantFrom<unknown>('x', 1, true), 1),
      })
      .map(objectOf),
  },
  { weight: 1, arbitrary: fc.oneof(wrongTypeForObject, fc.constant(null)) },
);

const s3String = fc.constantFrom('AKIA-FUZZ', '', 'bucket-1', 'https://s3.example.invalid');
const s3Config: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record({
        accessId: maybe(fc.oneof({ weight: 8, arbitrary: s3String }, { weight: 2, arbitrary: wrongTypeForString }), 7),
        accessSecret: maybe(fc.oneof({ weight: 8, arbitrary: s3String }, { weight: 2, arbitrary: wrongTypeForString }), 7),
        bucketName: maybe(fc.oneof({ weight: 8, arbitrary: s3String }, { weight: 2, arbitrary: wrongTypeForString }), 7),
        endpointUrl: maybe(fc.oneof({ weight: 8, arbitrary: s3String }, { weight: 2, arbitrary: wrongTypeForString }), 7),
      })
      .map(objectOf),
  },
  { weight: 2, arbitrary: fc.oneof(wrongTypeForObject, fc.constant(null)) },
);

const input: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 9, arbitrary: handlerInput },
  { weight: 1, arbitrary: fc.oneof(wrongTypeForObject, fc.constant(null)) },
);

/** A §2.1 job request object: input usually present, the optional fields often. */
export const jobRequestObject: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    input: maybe(input, 8),
    webhook: maybe(fc.oneof({ weight: 6, arbitrary: validWebhook }, { weight: 4, arbitrary: invalidWebhook }), 3),
    policy: maybe(policy, 7),
    s3Config: maybe(s3Config, 3),
    extraTopLevelField: maybe(fc.constantFrom<unknown>('x', 1, { a: 1 }), 1),
  })
  .map(objectOf);

const malformedJson: fc.Arbitrary<CaseBody> = fc.constantFrom<CaseBody>(
  { kind: 'text', text: '', why: 'empty body' },
  { kind: 'text', text: '{"input":', why: 'truncated JSON' },
  { kind: 'text', text: '{"input":{}}}', why: 'trailing brace' },
  { kind: 'text', text: "{'input':{}}", why: 'single quotes' },
  { kind: 'text', text: 'input=1', why: 'form encoding' },
  { kind: 'text', text: '{"input":{},}', why: 'trailing comma' },
);

/** The body of a job request: mostly an object, sometimes another JSON value or broken JSON. */
export const jobRequestBody: fc.Arbitrary<CaseBody> = fc.oneof(
  { weight: 17, arbitrary: jobRequestObject.map((value): CaseBody => ({ kind: 'json', value })) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>([], [{ input: {} }], 'input', 1, null).map((value): CaseBody => ({ kind: 'json', value })) },
  { weight: 2, arbitrary: malformedJson },
);

/** POST /run and /runsync (with `wait` around 1000 and 300000) cases. */
export const jobRequestCase: fc.Arbitrary<JobRequestCase> = fc.oneof(
  jobRequestBody.map((body): JobRequestCase => ({ operation: 'run', body })),
  fc
    .tuple(jobRequestBody, maybe(queryIntAroundBounds(RUNSYNC_WAIT_MS), 6))
    .map(([body, wait]: [CaseBody, string | Absent]): JobRequestCase => (wait === ABSENT ? { operation: 'runsync', body } : { operation: 'runsync', body, wait })),
);

/** §4.1 /status `ttl`: any positive integer up to policy.ttl's maximum (the StatusTtlQuery schema). */
const STATUS_TTL_QUERY_RANGE = { min: 1, max: TTL_MS.max };

/** GET /status/{id}?ttl= values: around the query's own range and around policy.ttl's minimum. */
export const statusTtlCase: fc.Arbitrary<StatusTtlCase> = fc
  .oneof(queryIntAroundBounds(STATUS_TTL_QUERY_RANGE), queryIntAroundBounds(TTL_MS))
  .map((ttl) => ({ ttl }));

/**
 * Body sizes that separate the readings of "MB": at and just below the decimal cap (must be
 * accepted), between the caps (ambiguous) and just above the binary cap (must be refused),
 * plus a small control. Few values: each costs up to 21 MB on the wire.
 */
export function payloadSizes(cap: ByteSize): number[] {
  return [cap.decimalBytes, cap.decimalBytes - 1, cap.binaryBytes + 1, cap.decimalBytes + 1, cap.binaryBytes, 1024];
}

export const payloadCase: fc.Arbitrary<PayloadCase> = fc.oneof(
  fc.constantFrom(...payloadSizes(RUN_PAYLOAD)).map((bytes): PayloadCase => ({ operation: 'run', body: { kind: 'padded', bytes } })),
  fc.constantFrom(...payloadSizes(RUNSYNC_PAYLOAD)).map((bytes): PayloadCase => ({ operation: 'runsync', body: { kind: 'padded', bytes } })),
);
