// §4.2 rolling release, end to end on the real emulator: a queue endpoint bound to a
// serverless template keeps taking a load of jobs while an update of the template replaces
// its workers one at a time; jobs in progress finish on their old worker and none is lost.
// Runs on a ScaledClock (50x): assertions are about order and counts, never wall-clock
// figures; every wait is bounded in iterations and real time.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- JSON answers are untyped; the tests assert their shape */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index.js';
import { TEST_API_KEY } from './mount.js';
import { rest } from './rest-client.js';

const EP = 'ep-roll';
const WORKERS = 3;
const JOBS_BEFORE = 30;
const JOBS_DURING = 30;
/** Emulated seconds each job runs (mock_delay): long enough that the roll meets jobs in flight. */
const JOB_SECONDS = 3;

let emu: EmulatorHandle | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer whose shape the test asserts
async function call(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${emu!.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

interface WorkerInfo { id: string; state: string; jobs: number; version: number }
const workersNow = async (): Promise<WorkerInfo[]> => (await call('GET', '/_qbench/counters')).endpoints[EP].workers;
const releaseNow = async (): Promise<{ state: string; version: number } | undefined> =>
  (await call('GET', '/_qbench/info')).subServices['rest-templates'].releases[0];

/** Poll `probe` until it returns a value, at most `maxPolls` times, 10 ms apart. */
async function until<T>(probe: () => Promise<T | undefined>, maxPolls: number, what: string): Promise<T> {
  for (let i = 0; i < maxPolls; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('rolling release under load (§4.2)', () => {
  it('replaces every worker one at a time with the new version and loses no job', async () => {
    emu = await startEmulator({
      apiKey: TEST_API_KEY,
      endpoints: [EP],
      timeScale: 50,
      workers: { min: WORKERS, max: WORKERS, coldStartMs: 2_000, idleTimeoutMs: 600_000 },
      limits: { enabled: false },
    });
    const tpl = await call('POST', '/v1/templates', { name: 'worker', imageName: 'acme/worker:1', isServerless: true });
    expect((await call('PATCH', `/v1/endpoints/${EP}`, { templateId: tpl.id })).templateVersion).toBe(1);
    await until(async () => ((await workersNow()).filter((w) => w.state !== 'initializing').length === WORKERS ? true : undefined), 500, 'workers ready');
    expect((await workersNow()).map((w) => w.version)).toEqual([1, 1, 1]);
    const v1Workers = new Set((await workersNow()).map((w) => w.id));

    const submit = async (i: number) => (await call('POST', `/v2/${EP}/run`, { input: { mock_delay: JOB_SECONDS, mock_return: { n: i } } })).id as string;
    const ids: string[] = [];
    for (let i = 0; i < JOBS_BEFORE; i++) ids.push(await submit(i));
    await until(async () => ((await workersNow()).some((w) => w.jobs > 0) ? true : undefined), 500, 'jobs in progress');

    const updated = await call('PATCH', `/v1/templates/${tpl.id}`, { imageName: 'acme/worker:2' });
    expect(updated.imageName).toBe('acme/worker:2');

    // Keep the load coming while the release rolls, and watch the workers.
    const samples: WorkerInfo[][] = [];
    const healthSamples: { idle: number; running: number }[] = [];
    let n = JOBS_BEFORE;
    for (let poll = 0; poll < 2_000; poll++) {
      if (n < JOBS_BEFORE + JOBS_DURING) ids.push(await submit(n++));
      samples.push(await workersNow());
      healthSamples.push((await call('GET', `/v2/${EP}/health`)).workers);
      const r = await releaseNow();
      if (r?.state === 'done' && n === JOBS_BEFORE + JOBS_DURING) break;
      await new Promise((res) => setTimeout(res, 5));
    }
    expect(await releaseNow()).toMatchObject({ state: 'done', version: 2 });

    // Observable roll: mixed versions were seen, old ones drained one at a time, the end is all v2.
    expect(samples.some((s) => s.some((w) => w.version === 1) && s.some((w) => w.version === 2))).toBe(true);
    for (const s of samples) expect(s.filter((w) => w.state === 'draining').length).toBeLessThanOrEqual(1);
    const oldCounts = samples.map((s) => s.filter((w) => w.version === 1).length);
    for (let i = 1; i < oldCounts.length; i++) expect(oldCounts[i]).toBeLessThanOrEqual(oldCounts[i - 1]!);
    const end = await workersNow();
    expect(end.map((w) => w.version)).toEqual([2, 2, 2]);
    expect(end.some((w) => v1Workers.has(w.id))).toBe(false);
    // /health kept reporting live workers throughout the roll.
    for (const h of healthSamples) expect(h.idle + h.running).toBeGreaterThan(0);
    const info = await call('GET', '/_qbench/info');
    expect(info.subServices['rest-templates'].templates.find((t: { id: string }) => t.id === tpl.id)).toMatchObject({ version: 2, endpoints: [EP] });

    // No job lost: every one completes with its own output; the early ones ran on v1 workers, later ones on v2.
    const finals = await until(async () => {
      const all = await Promise.all(ids.map((id) => call('GET', `/v2/${EP}/status/${id}`)));
      return all.every((s) => s.status === 'COMPLETED' || s.status === 'FAILED') ? all : undefined;
    }, 1_000, 'every job to finish');
    expect(finals).toHaveLength(JOBS_BEFORE + JOBS_DURING);
    finals.forEach((s, i) => {
      expect(s.status).toBe('COMPLETED');
      expect(s.output).toEqual({ n: i });
    });
    const ranOnV1 = finals.filter((s) => v1Workers.has(s.workerId)).length;
    expect(ranOnV1).toBeGreaterThan(0);
    expect(ranOnV1).toBeLessThan(finals.length);
    const health = await call('GET', `/v2/${EP}/health`);
    expect(health.jobs.completed).toBe(JOBS_BEFORE + JOBS_DURING);
    expect(health.jobs.failed).toBe(0);
  });

  it('a template id that the config binds an endpoint to exists as a serverless template, and updating it rolls that endpoint', async () => {
    // The bindings come from the config alone: the core hands them to the REST part.
    emu = await startEmulator({ apiKey: TEST_API_KEY, endpoints: [EP], endpointTemplates: { [EP]: 'tpl-from-config' }, timeScale: 50, workers: { min: 2, max: 2, coldStartMs: 1_000 } });
    const tpl = await call('GET', '/v1/templates/tpl-from-config');
    expect(tpl).toMatchObject({ id: 'tpl-from-config', name: 'tpl-from-config', isServerless: true });
    await until(async () => ((await workersNow()).filter((w) => w.state !== 'initializing').length === 2 ? true : undefined), 500, 'workers ready');
    expect((await workersNow()).map((w) => w.version)).toEqual([1, 1]);
    await call('POST', '/v1/templates/tpl-from-config/update', { imageName: 'acme/worker:2' });
    await until(async () => ((await releaseNow())?.state === 'done' ? true : undefined), 1_000, 'release end');
    expect((await workersNow()).map((w) => w.version)).toEqual([2, 2]);
    // A template in use by an endpoint cannot be deleted.
    expect((await rest(emu.url, 'DELETE', '/v1/templates/tpl-from-config')).status).toBe(400);
  });

  it('a pod template update starts no release; an unbound serverless one rolls nothing', async () => {
    emu = await startEmulator({ apiKey: TEST_API_KEY, endpoints: [EP], timeScale: 50, workers: { min: 1, max: 1, coldStartMs: 1_000 } });
    const pod = await call('POST', '/v1/templates', { name: 'pod', imageName: 'x:1' });
    await call('PATCH', `/v1/templates/${pod.id}`, { imageName: 'x:2' });
    expect(await releaseNow()).toBeUndefined();
    const sls = await call('POST', '/v1/templates', { name: 'sls', imageName: 'x:1', isServerless: true });
    await call('PATCH', `/v1/templates/${sls.id}`, { imageName: 'x:2' });
    expect(await until(async () => ((await releaseNow())?.state === 'done' ? true : undefined), 500, 'release end')).toBe(true);
    await until(async () => ((await workersNow()).every((w) => w.state !== 'initializing') ? true : undefined), 500, 'worker ready');
    // The endpoint is not bound to that template: its worker keeps version 0.
    expect((await workersNow()).map((w) => w.version)).toEqual([0]);
    // Unknown endpoint ids cannot be bound.
    const res = await rest(emu.url, 'PATCH', '/v1/endpoints/nope', { templateId: sls.id });
    expect(res.status).toBe(404);
  });
});
