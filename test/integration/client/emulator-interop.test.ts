// The three clients against the in-process emulator (port 0, scaled clock): every answer of
// the emulator passes the clients' schema checks, and the GraphQL documents validate against
// the emulator's SDL. Assertions are on states and shapes, never on durations.
import { buildSchema, parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENTS, PodClient, QueueClient, TemplateClient } from '../../../src/client/index.js';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { POD_SCHEMA_SDL } from '../../../src/emulator/graphql/schema-sdl.js';
import { NO_INSTANCES_MESSAGE, RUNSYNC_WAIT_MS } from '../../../src/spec/index.js';

const KEY = 'interop-key-4411';
// 100x: a handler's 1 s mock_delay takes 10 ms of real time.
const TIME_SCALE = 100;
const POLL = { pollIntervalMs: 10, maxDurationMs: 20_000 } as const;

let em: EmulatorHandle;
let queue: QueueClient;
let rawQueue: QueueClient;
let templates: TemplateClient;
let pods: PodClient;

beforeAll(async () => {
  em = await startEmulator({ apiKey: KEY, timeScale: TIME_SCALE, workers: { coldStartMs: 0 } });
  queue = new QueueClient({ baseUrl: em.url, endpointId: 'demo', apiKey: KEY });
  rawQueue = new QueueClient({ baseUrl: em.url, endpointId: 'demo', apiKey: KEY, authForm: 'raw' });
  templates = new TemplateClient({ baseUrl: em.url, apiKey: KEY });
  pods = new PodClient({ baseUrl: `${em.url}/graphql`, apiKey: KEY });
});

afterAll(async () => {
  await Promise.all([queue.close(), rawQueue.close(), templates.close(), pods.close()]);
  await em.close();
});

describe('QueueClient against the emulator', () => {
  it('run, status, waitForJob and runSync (both auth forms)', async () => {
    const run = await queue.run({ input: { mock_return: 'hi', mock_delay: 1 } });
    expect(run.status).toBe('IN_QUEUE');
    const done = await queue.waitForJob(run.id, POLL);
    expect(done).toMatchObject({ id: run.id, status: 'COMPLETED', output: 'hi' });
    const sync = await rawQueue.runSync({ input: { mock_return: 'sync' } }, { waitMs: RUNSYNC_WAIT_MS.min * 5 });
    expect(sync).toMatchObject({ status: 'COMPLETED', output: 'sync' });
    expect((await queue.statusSync(run.id, { waitMs: RUNSYNC_WAIT_MS.min })).status).toBe('COMPLETED');
  });

  it('stream yields each generator chunk and ends on the terminal status', async () => {
    const job = await queue.run({ input: { mock_return: ['a', 'b', 'c'], mock_delay: 1 } });
    const out: unknown[] = [];
    const it = queue.stream(job.id, POLL);
    let r = await it.next();
    for (; !r.done; r = await it.next()) out.push(r.value.output);
    expect(out).toEqual(['a', 'b', 'c']);
    expect(r.value).toMatchObject({ status: 'COMPLETED', chunks: 3, shape: 'object' });
  });

  it('FAILED then retry; cancel; purge; health; 404 as QB_ERR_HTTP', async () => {
    const failing = await queue.run({ input: { mock_error: true } });
    const failed = await queue.waitForJob(failing.id, POLL);
    expect(failed.status).toBe('FAILED');
    expect(typeof failed.error).toBe('string');
    expect(await queue.retry(failing.id)).toEqual({ id: failing.id, status: 'IN_QUEUE' });
    const slow = await queue.run({ input: { mock_delay: 1000 } });
    expect(await queue.cancel(slow.id)).toEqual({ id: slow.id, status: 'CANCELLED' });
    expect((await queue.purgeQueue()).status).toBe('completed');
    const health = await queue.health();
    expect(health.jobs.failed).toBeGreaterThanOrEqual(1);
    await expect(queue.status('no-such-job')).rejects.toMatchObject({ code: 'QB_ERR_HTTP', status: 404 });
  });
});

describe('TemplateClient against the emulator', () => {
  it('create with defaults, update both ways, list, get, delete; category refused by the service too', async () => {
    const tpl = await templates.create({ name: 'interop-tpl', imageName: 'img:1', ports: ['8888/http'] });
    expect([tpl.category, tpl.volumeMountPath, tpl.isServerless]).toEqual(['NVIDIA', '/workspace', false]);
    expect((await templates.update(tpl.id, { readme: 'x' })).readme).toBe('x');
    expect((await templates.update(tpl.id, { readme: 'y' }, { via: 'patch' })).readme).toBe('y');
    expect((await templates.list()).map((t) => t.id)).toContain(tpl.id);
    expect((await templates.get(tpl.id)).name).toBe('interop-tpl');
    const unchecked = new TemplateClient({ baseUrl: em.url, apiKey: KEY, validateRequests: false });
    try {
      await expect(unchecked.update(tpl.id, { category: 'AMD' } as never)).rejects.toMatchObject({ code: 'QB_ERR_HTTP', status: 400 });
    } finally {
      await unchecked.close();
    }
    await templates.delete(tpl.id);
    await expect(templates.get(tpl.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe('PodClient against the emulator', () => {
  it('every document validates against the emulator SDL', () => {
    const schema = buildSchema(POD_SCHEMA_SDL);
    for (const [name, doc] of Object.entries(DOCUMENTS)) expect(validate(schema, parse(doc)).map((e) => e.message), name).toEqual([]);
  });

  it('gpu types with price, deploy, pod, stop, resume, terminate; no stock is a GraphqlError', async () => {
    const types = await pods.gpuTypes(undefined, { gpuCount: 1 });
    expect(types.length).toBeGreaterThan(0);
    const inStock = types.find((t) => t.lowestPrice?.stockStatus && t.lowestPrice.stockStatus !== 'None' && t.secureCloud);
    const soldOut = types.find((t) => t.lowestPrice?.stockStatus === 'None');
    expect(inStock).toBeDefined();
    const pod = await pods.deployOnDemand({ gpuCount: 1, gpuTypeId: inStock!.id, imageName: 'img', cloudType: 'SECURE' });
    expect((await pods.pod(pod.id))?.desiredStatus).toBe('RUNNING');
    expect((await pods.myPods()).map((p) => p.id)).toContain(pod.id);
    expect((await pods.stop(pod.id)).desiredStatus).toBe('EXITED');
    expect((await pods.resume({ podId: pod.id, gpuCount: 1 })).desiredStatus).toBe('RUNNING');
    expect(await pods.terminate(pod.id)).toBeNull();
    // The default catalogue has a type with no free stock (docs/reference/emulator.md: B200).
    expect(soldOut).toBeDefined();
    await expect(pods.deployOnDemand({ gpuCount: 1, gpuTypeId: soldOut!.id, imageName: 'img', cloudType: 'SECURE' })).rejects.toMatchObject({
      code: 'QB_ERR_GRAPHQL',
      errors: [expect.objectContaining({ message: NO_INSTANCES_MESSAGE })],
    });
  });
});
