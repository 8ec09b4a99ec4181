// Property tests: values generated inside the spec's rules survive the wire (JSON) and parse
// to themselves; values generated just outside a bound never parse. Arbitraries read every
// bound from src/spec, so a changed limit moves the tests with it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  EXECUTION_TIMEOUT_MS,
  GpuTypeRecord,
  HealthRecord,
  JOB_STATES,
  JobRecord,
  JobRequest,
  Policy,
  PodDeployInput,
  PodRecord,
  RUNSYNC_WAIT_MS,
  STOCK_STATUSES,
  StreamAnswer,
  TEMPLATE_CATEGORIES,
  TTL_MS,
  TemplateCreate,
  TemplateRecord,
  TemplateUpdate,
  WaitQuery,
} from '../../../src/spec/index.js';

const MAX_PORT = 65_535;
const NUM_RUNS = 200;

/** Send through JSON, parse, and compare with what the wire carried. */
function roundTrips(schema: z.ZodType, value: unknown): void {
  const wire: unknown = JSON.parse(JSON.stringify(value));
  const r = schema.safeParse(wire);
  if (!r.success) throw new Error(`did not parse: ${JSON.stringify(wire)}\n${r.error.message}`);
  expect(r.data).toEqual(wire);
  // Parsing is idempotent: the output is itself valid and unchanged.
  expect(schema.parse(r.data)).toEqual(r.data);
}

const intIn = (b: { min: number; max: number }) => fc.integer({ min: b.min, max: b.max });
const json = fc.jsonValue({ maxDepth: 3 });
const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 5 });
const nonEmpty = fc.string({ minLength: 1, maxLength: 20 });
const nat = fc.nat({ max: 1_000_000 });

const policyArb = fc.record(
  { executionTimeout: intIn(EXECUTION_TIMEOUT_MS), lowPriority: fc.boolean(), ttl: intIn(TTL_MS) },
  { requiredKeys: [] },
);
const s3Arb = fc.record({ accessId: fc.string(), accessSecret: fc.string(), bucketName: fc.string(), endpointUrl: fc.webUrl() }, { requiredKeys: [] });
const jobRequestArb = fc.record(
  { input: jsonObject, webhook: fc.webUrl({ withQueryParameters: true }), policy: policyArb, s3Config: s3Arb },
  { requiredKeys: ['input'] },
);
const jobRecordArb = fc.record(
  {
    id: nonEmpty,
    status: fc.constantFrom(...JOB_STATES),
    delayTime: nat,
    executionTime: nat,
    output: json,
    workerId: nonEmpty,
    error: fc.string(),
  },
  { requiredKeys: ['id', 'status'] },
);
const metricsArb = fc.record(
  {
    avg_gen_throughput: fc.double({ noNaN: true, noDefaultInfinity: true }),
    avg_prompt_throughput: fc.double({ noNaN: true, noDefaultInfinity: true }),
    cpu_kv_cache_usage: fc.double({ min: 0, max: 1, noNaN: true }),
    gpu_kv_cache_usage: fc.double({ min: 0, max: 1, noNaN: true }),
    input_tokens: nat,
    output_tokens: nat,
    pending: nat,
    running: nat,
    swapped: nat,
    stream_index: nat,
    scenario: fc.string(),
  },
  { requiredKeys: [] },
);
const chunkArb = fc.record({ output: json, metrics: metricsArb }, { requiredKeys: ['output'] });
const streamArb = fc.oneof(
  fc.record({ status: fc.constantFrom(...JOB_STATES), stream: fc.array(chunkArb, { maxLength: 4 }) }),
  fc.array(chunkArb, { maxLength: 4 }),
);
const healthArb = fc.record({
  jobs: fc.record({ completed: nat, failed: nat, inProgress: nat, inQueue: nat, retried: nat }),
  workers: fc.record({ idle: nat, running: nat, initializing: nat, ready: nat, throttled: nat, unhealthy: nat }, { requiredKeys: ['idle', 'running'] }),
});

const portArb = fc.tuple(fc.integer({ min: 1, max: MAX_PORT }), fc.constantFrom('http', 'tcp')).map(([p, proto]) => `${p}/${proto}`);
const mountArb = fc.array(fc.stringMatching(/^[\w.-]{1,8}$/), { maxLength: 3 }).map((parts) => `/${parts.join('/')}`);
const gbArb = fc.nat({ max: 10_000 });
const writable = {
  containerDiskInGb: gbArb,
  containerRegistryAuthId: fc.string(),
  dockerEntrypoint: fc.array(fc.string(), { maxLength: 3 }),
  dockerStartCmd: fc.array(fc.string(), { maxLength: 3 }),
  env: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string(), { maxKeys: 4 }),
  isPublic: fc.boolean(),
  ports: fc.array(portArb, { maxLength: 4 }),
  readme: fc.string(),
  volumeInGb: gbArb,
  volumeMountPath: mountArb,
};
const templateCreateArb = fc.record(
  { imageName: nonEmpty, name: nonEmpty, category: fc.constantFrom(...TEMPLATE_CATEGORIES), isServerless: fc.boolean(), ...writable },
  { requiredKeys: ['imageName', 'name'] },
);
const templateUpdateArb = fc.record({ imageName: nonEmpty, name: nonEmpty, ...writable }, { requiredKeys: [] });
const templateRecordArb = fc.record(
  {
    id: nonEmpty,
    name: nonEmpty,
    imageName: nonEmpty,
    category: fc.constantFrom(...TEMPLATE_CATEGORIES),
    containerDiskInGb: gbArb,
    containerRegistryAuthId: fc.string(),
    dockerEntrypoint: writable.dockerEntrypoint,
    dockerStartCmd: writable.dockerStartCmd,
    env: writable.env,
    isPublic: fc.boolean(),
    isServerless: fc.boolean(),
    ports: writable.ports,
    readme: fc.string(),
    volumeInGb: gbArb,
    volumeMountPath: mountArb,
    earned: fc.double({ min: 0, max: 1e9, noNaN: true }),
    isProvider: fc.boolean(),
    isRunpod: fc.boolean(),
    runtimeInMin: nat,
  },
  { requiredKeys: ['id', 'name', 'imageName', 'category', 'containerDiskInGb', 'dockerEntrypoint', 'dockerStartCmd', 'isPublic', 'isServerless', 'readme', 'volumeInGb', 'volumeMountPath', 'earned', 'isProvider', 'runtimeInMin'] },
);
const podRecordArb = fc.record(
  {
    id: nonEmpty,
    name: fc.string(),
    imageName: fc.string(),
    env: fc.array(fc.tuple(fc.stringMatching(/^[A-Z_]{1,6}$/), fc.string()).map(([k, v]) => `${k}=${v}`), { maxLength: 3 }),
    machineId: fc.string(),
    machine: fc.record({ podHostId: fc.string() }),
    desiredStatus: fc.constantFrom('RUNNING', 'EXITED'),
    runtime: fc.record({
      uptimeInSeconds: nat,
      ports: fc.array(fc.record({ ip: fc.ipV4(), isIpPublic: fc.boolean(), privatePort: fc.integer({ min: 1, max: MAX_PORT }), publicPort: fc.integer({ min: 1, max: MAX_PORT }), type: fc.constantFrom('http', 'tcp') }), { maxLength: 3 }),
      gpus: fc.array(fc.record({ id: fc.string(), gpuUtilPercent: fc.integer({ min: 0, max: 100 }), memoryUtilPercent: fc.integer({ min: 0, max: 100 }) }), { maxLength: 2 }),
      container: fc.record({ cpuPercent: fc.integer({ min: 0, max: 100 }), memoryPercent: fc.integer({ min: 0, max: 100 }) }),
    }),
  },
  { requiredKeys: ['id'] },
);
const gpuTypeArb = fc.record(
  {
    id: nonEmpty,
    displayName: fc.string(),
    memoryInGb: fc.nat({ max: 1024 }),
    secureCloud: fc.boolean(),
    communityCloud: fc.boolean(),
    lowestPrice: fc.record({
      minimumBidPrice: fc.double({ min: 0, max: 100, noNaN: true }),
      uninterruptablePrice: fc.double({ min: 0, max: 100, noNaN: true }),
      stockStatus: fc.constantFrom(...STOCK_STATUSES),
      availableGpuCounts: fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 4 }),
    }),
  },
  { requiredKeys: ['id'] },
);
const podDeployArb = fc.record(
  {
    gpuCount: fc.integer({ min: 1, max: 8 }),
    gpuTypeId: nonEmpty,
    imageName: nonEmpty,
    cloudType: fc.constantFrom('ALL', 'SECURE'),
    volumeInGb: gbArb,
    containerDiskInGb: gbArb,
    ports: fc.array(portArb, { minLength: 1, maxLength: 3 }).map((ps) => ps.join(',')),
    volumeMountPath: mountArb,
    env: fc.array(fc.record({ key: nonEmpty, value: fc.string() }), { maxLength: 3 }),
    allowedCudaVersions: fc.array(fc.constantFrom('11.8', '12.1', '12.4'), { maxLength: 2 }),
  },
  { requiredKeys: ['gpuCount', 'gpuTypeId', 'imageName'] },
);

describe('round-trips: valid generated values parse to themselves', () => {
  const cases: [string, z.ZodType, fc.Arbitrary<unknown>][] = [
    ['Policy', Policy, policyArb],
    ['JobRequest', JobRequest, jobRequestArb],
    ['JobRecord', JobRecord, jobRecordArb],
    ['StreamAnswer', StreamAnswer, streamArb],
    ['HealthRecord', HealthRecord, healthArb],
    ['TemplateCreate', TemplateCreate, templateCreateArb],
    ['TemplateUpdate', TemplateUpdate, templateUpdateArb],
    ['TemplateRecord', TemplateRecord, templateRecordArb],
    ['PodRecord', PodRecord, podRecordArb],
    ['GpuTypeRecord', GpuTypeRecord, gpuTypeArb],
    ['PodDeployInput', PodDeployInput, podDeployArb],
  ];
  for (const [name, schema, arb] of cases) {
    it(name, () => fc.assert(fc.property(arb, (v) => roundTrips(schema, v)), { numRuns: NUM_RUNS }));
  }

  it('wait query: every integer in range parses back to its number', () => {
    fc.assert(fc.property(intIn(RUNSYNC_WAIT_MS), (w) => {
      expect(WaitQuery.parse(String(w))).toBe(w);
    }), { numRuns: NUM_RUNS });
  });
});

describe('bounds: values outside a range never parse', () => {
  const outside = (b: { min: number; max: number }) =>
    fc.oneof(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: b.min - 1 }), fc.integer({ min: b.max + 1, max: Number.MAX_SAFE_INTEGER }));

  it('executionTimeout, ttl and wait', () => {
    fc.assert(
      fc.property(outside(EXECUTION_TIMEOUT_MS), outside(TTL_MS), outside(RUNSYNC_WAIT_MS), (e, t, w) => {
        expect(Policy.safeParse({ executionTimeout: e }).success).toBe(false);
        expect(Policy.safeParse({ ttl: t }).success).toBe(false);
        expect(WaitQuery.safeParse(String(w)).success).toBe(false);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('ports outside 1-65535 or with another protocol', () => {
    const badPort = fc.oneof(
      fc.integer({ min: MAX_PORT + 1, max: 99_999 }).map((p) => `${p}/http`),
      fc.constant('0/tcp'),
      fc.tuple(fc.integer({ min: 1, max: MAX_PORT }), fc.constantFrom('udp', 'HTTP', 'Tcp', 'sctp', '')).map(([p, proto]) => `${p}/${proto}`),
    );
    fc.assert(fc.property(badPort, (p) => {
      expect(TemplateCreate.safeParse({ name: 'n', imageName: 'i', ports: [p] }).success).toBe(false);
    }), { numRuns: NUM_RUNS });
  });

  it('relative mount paths', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }).filter((s) => !s.startsWith('/')), (p) => {
        expect(TemplateUpdate.safeParse({ volumeMountPath: p }).success).toBe(false);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
