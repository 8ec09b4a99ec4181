// §5 auth on the queue endpoint, §7 400 for malformed requests, §2.1 policy bounds at both
// ends, §4.1 wait bounds, §4.1/§8 payload caps measured at both readings of "MB".
import {
  fail, inconclusive, paddedBodyRecipe, EXECUTION_TIMEOUT_MS, HTTP_STATUS, RUNSYNC_WAIT_MS, RUN_PAYLOAD,
  RUNSYNC_PAYLOAD, TTL_MS, notTheTargetsAnswer, type CheckContext, type CheckDefinition, type ProbeResponse,
  type ByteSize,
} from 'qbench/suite';
import { describe, expectRefusal, expectStatus, send } from '../lib/http.js';
import { endpointFor, jobBody, qpath, submitRunsync } from '../lib/queue.js';

const SOME_ID = '00000000-0000-4000-8000-000000000002';

export const validationChecks: CheckDefinition[] = [
  {
    id: 'queue.auth.missing-or-wrong-key-401',
    title: 'Every queue operation answers 401 without a key and with a wrong key',
    clauses: ['5/401', '7/401', '5/queue-auth'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const ops = [
        ['POST', qpath(ep, 'run'), { input: { a: 1 } }],
        ['POST', qpath(ep, 'runsync'), { input: { a: 1 } }],
        ['GET', qpath(ep, 'status', SOME_ID), undefined],
        ['GET', qpath(ep, 'stream', SOME_ID), undefined],
        ['POST', qpath(ep, 'cancel', SOME_ID), undefined],
        ['POST', qpath(ep, 'retry', SOME_ID), undefined],
        ['POST', qpath(ep, 'purge-queue'), undefined],
        ['GET', qpath(ep, 'health'), undefined],
      ] as const;
      for (const auth of ['none', 'wrong'] as const) {
        for (const [method, path, json] of ops) {
          const res = await send(ctx, { iface: 'queue', method, path, auth, ...(json !== undefined ? { json } : {}) });
          expectStatus(res, HTTP_STATUS.unauthorized, `${method} ${path} with ${auth === 'none' ? 'no' : 'a wrong'} key`);
        }
      }
      return undefined;
    },
  },
  {
    id: 'queue.auth.raw-and-bearer',
    title: 'The queue endpoint accepts the key raw and as "Bearer <key>"',
    clauses: ['5/queue-auth'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx) {
      const ep = endpointFor(ctx);
      for (const auth of ['raw', 'bearer'] as const) {
        const res = await send(ctx, { iface: 'queue', method: 'GET', path: qpath(ep, 'health'), auth });
        expectStatus(res, HTTP_STATUS.ok, `GET /health with the key ${auth === 'raw' ? 'raw' : 'as Bearer'}`);
      }
      return undefined;
    },
  },
  {
    id: 'queue.request.input-required',
    title: '/run and /runsync refuse a body without input, with a non-object input, or malformed JSON, with 400',
    clauses: ['2.1/input-required', '7/400', '4.1/json-bodies'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx) {
      const ep = endpointFor(ctx);
      for (const op of ['run', 'runsync'] as const) {
        const cases: [string, string][] = [
          ['no input', JSON.stringify({ webhook: 'http://127.0.0.1:9/x' })],
          ['input as a string', JSON.stringify({ input: 'text' })],
          ['input as an array', JSON.stringify({ input: [1, 2] })],
          ['input null', JSON.stringify({ input: null })],
          ['malformed JSON', '{"input": {"a": 1'],
          ['a JSON array body', '[{"input": {}}]'],
        ];
        for (const [what, body] of cases) {
          const res = await send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, op), body });
          expectStatus(res, HTTP_STATUS.badRequest, `POST /${op} with ${what}`);
        }
      }
      return undefined;
    },
  },
  {
    id: 'queue.request.optional-fields',
    title: '/run accepts webhook, policy and s3Config (all strings) beside input',
    clauses: ['2.1/s3config', '2.1/webhook-optional'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const body = jobBody({ a: 1 }, {
        policy: { executionTimeout: EXECUTION_TIMEOUT_MS.defaultValue, ttl: TTL_MS.defaultValue, lowPriority: false },
        extra: { s3Config: { accessId: 'qbench-id', accessSecret: 'qbench-not-a-real-secret', bucketName: 'b', endpointUrl: 'https://s3.example.invalid' } },
      });
      const res = await send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, 'run'), json: body });
      expectStatus(res, HTTP_STATUS.ok, 'POST /run with policy and s3Config');
      if (res.text.includes('qbench-not-a-real-secret')) fail('the answer does not echo s3Config.accessSecret', describe(res), res);
      return undefined;
    },
  },
  {
    id: 'queue.policy.bounds',
    title: 'policy.executionTimeout (5 s..7 d) and policy.ttl (10 s..7 d): both ends accepted, one past each end refused with 400',
    clauses: ['2.1/execution-timeout-bounds', '2.1/ttl-bounds', '7/400'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const cases: [string, number, boolean][] = [
        ['executionTimeout', EXECUTION_TIMEOUT_MS.min, true],
        ['executionTimeout', EXECUTION_TIMEOUT_MS.max, true],
        ['executionTimeout', EXECUTION_TIMEOUT_MS.min - 1, false],
        ['executionTimeout', EXECUTION_TIMEOUT_MS.max + 1, false],
        ['ttl', TTL_MS.min, true],
        ['ttl', TTL_MS.max, true],
        ['ttl', TTL_MS.min - 1, false],
        ['ttl', TTL_MS.max + 1, false],
      ];
      for (const [name, value, ok] of cases) {
        const res = await send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, 'run'), json: jobBody({ a: 1 }, { policy: { [name]: value } }) });
        if (ok) expectStatus(res, HTTP_STATUS.ok, `policy.${name} = ${value} (inside the bounds)`);
        else expectStatus(res, HTTP_STATUS.badRequest, `policy.${name} = ${value} (outside the bounds)`);
      }
      const asString = await send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, 'run'), body: '{"input":{"a":1},"policy":{"executionTimeout":"600000"}}' });
      expectStatus(asString, HTTP_STATUS.badRequest, 'policy.executionTimeout as a string');
      return undefined;
    },
  },
  {
    id: 'queue.runsync.wait-bounds',
    title: '/runsync wait: 1000 and 300000 accepted, 999 and 300001 and non-integers refused with 400',
    clauses: ['4.1/wait-bounds', '7/400'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx) {
      const ep = endpointFor(ctx);
      const good = [RUNSYNC_WAIT_MS.min, RUNSYNC_WAIT_MS.max];
      const bad = [`${RUNSYNC_WAIT_MS.min - 1}`, `${RUNSYNC_WAIT_MS.max + 1}`, 'abc', '-5', '1000.5'];
      for (const w of good) {
        const res = await submitRunsync(ctx, ep, { mock_return: 'w' }, { waitMs: w });
        expectStatus(res, HTTP_STATUS.ok, `/runsync?wait=${w}`);
      }
      for (const w of bad) {
        const res = await send(ctx, { iface: 'queue', method: 'POST', path: qpath(ep, 'runsync'), rawQuery: `wait=${w}`, json: { input: { mock_return: 'w' } } });
        expectStatus(res, HTTP_STATUS.badRequest, `/runsync?wait=${w}`);
      }
      return undefined;
    },
  },
  payloadCheck('run', RUN_PAYLOAD, '4.1/run-payload'),
  payloadCheck('runsync', RUNSYNC_PAYLOAD, '4.1/runsync-payload'),
];

const PREFIX = '{"input":{"pad":"';
const SUFFIX = '"}}';

/** A valid job body of exactly `bytes` bytes. */
function padded(bytes: number): { body: Buffer; recipe: string } {
  const pad = bytes - PREFIX.length - SUFFIX.length;
  const body = Buffer.alloc(bytes, 'x');
  body.write(PREFIX, 0);
  body.write(SUFFIX, bytes - SUFFIX.length);
  return { body, recipe: paddedBodyRecipe(PREFIX, pad, SUFFIX) };
}

/** Refused for size: 400 or 413 (the spec names no code for it; §7 400 covers "malformed request or parameters"). */
function refusedForSize(res: ProbeResponse): boolean {
  return res.status === HTTP_STATUS.badRequest || res.status === 413;
}

function payloadCheck(op: 'run' | 'runsync', cap: ByteSize, clause: string): CheckDefinition {
  return {
    id: `queue.payload.${op}-cap`,
    title: `/${op} accepts a ${cap.megabytes} MB body and refuses one past the cap (either reading of MB)`,
    clauses: [clause, '8/payload-limits'],
    interface: 'queue', kind: 'spec', tags: [],
    async run(ctx: CheckContext) {
      const ep = endpointFor(ctx, 'payload');
      // Probes at both boundaries: exactly decimal MB, one past it, exactly binary MiB, one past it.
      const sizes = [cap.decimalBytes, cap.decimalBytes + 1, cap.binaryBytes, cap.binaryBytes + 1];
      const outcome = new Map<number, ProbeResponse>();
      for (const size of sizes) {
        const { body, recipe } = padded(size);
        const res = await send(ctx, {
          iface: 'queue', method: 'POST', path: qpath(ep, op), body, bodyRecipe: recipe,
          ...(op === 'runsync' ? { rawQuery: `wait=${RUNSYNC_WAIT_MS.min}` } : {}),
          timeoutMs: 60_000,
        });
        outcome.set(size, res);
      }
      const unseen = sizes.map((n) => outcome.get(n) as ProbeResponse).filter((r) => notTheTargetsAnswer(r.status));
      if (unseen.length > 0) {
        inconclusive(`the target's own answer to ${unseen.length} of the ${sizes.length} body sizes was not seen (${unseen.map(describe).join('; ')}): the connection broke or a gateway answered, as a proxy does when the target refuses a large upload early; run again, or point qbench at the target without the proxy`, unseen);
      }
      const accepted = (n: number) => outcome.get(n)?.status === HTTP_STATUS.ok;
      const refused = (n: number) => { const r = outcome.get(n); return r !== undefined && refusedForSize(r); };
      let reading: string;
      if (accepted(cap.binaryBytes) && refused(cap.binaryBytes + 1)) reading = 'binary (MiB)';
      else if (accepted(cap.decimalBytes) && refused(cap.decimalBytes + 1)) reading = 'decimal (10^6)';
      else reading = 'neither';
      const largest = [...sizes].reverse().find(accepted);
      ctx.measure('largestAcceptedProbeBytes', largest ?? null);
      ctx.measure('mbReading', reading);
      ctx.measure('probes', Object.fromEntries(sizes.map((s) => [String(s), outcome.get(s)?.status ?? null])));
      const dec = outcome.get(cap.decimalBytes) as ProbeResponse;
      if (!accepted(cap.decimalBytes)) fail(`a ${cap.decimalBytes}-byte body (${cap.megabytes} MB under both readings) accepted with 200`, describe(dec), dec);
      const over = outcome.get(cap.binaryBytes + 1) as ProbeResponse;
      if (!refused(cap.binaryBytes + 1)) fail(`a ${cap.binaryBytes + 1}-byte body (past ${cap.megabytes} MB under both readings) refused with 400 or 413`, describe(over), over);
      if (reading === 'neither') {
        expectRefusal(outcome.get(cap.decimalBytes + 1) as ProbeResponse, 'a consistent cap');
        fail(`the cap at ${cap.decimalBytes} or ${cap.binaryBytes} bytes`, `probe statuses ${JSON.stringify(Object.fromEntries(sizes.map((s) => [s, outcome.get(s)?.status])))}`, [dec, over, outcome.get(cap.decimalBytes + 1) as ProbeResponse]);
      }
      return { observed: `cap read as ${reading}; largest accepted probe ${largest} bytes` };
    },
  };
}
