// The deployment model driven on a ManualClock, no sockets: scaler decisions (QUEUE_DELAY's
// periodic check, REQUEST_COUNT's target), lowPriority never scaling, the idle-timeout stop,
// active vs flex billing with per-worker rounding, throttled and initializing time unbilled,
// overhead and dispatch in the timing fields, execution by input class, streaming, and the
// same seed giving the same run. Every expected figure is computed from the stated settings.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/emulator/clock.js';
import { parseEmulatorConfig } from '../../../src/emulator/config.js';
import { EmulatorCore } from '../../../src/emulator/core.js';
import { DEFAULT_PRICES, startsOnChange, startsOnCheck, type DeploymentSettingsInput, type ScalerView } from '../../../src/deployment/index.js';
import type { QueueEndpoint } from '../../../src/emulator/queue/index.js';
import type { Job } from '../../../src/emulator/queue/job.js';

const EP = 'ep';
let open: EmulatorCore | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

interface Harness {
  clock: ManualClock;
  ep: QueueEndpoint;
  /** Move emulated time in 10 ms steps, letting handler continuations run after each. */
  tick(ms: number): Promise<void>;
  workers(): Record<string, number>;
  submit(input?: Record<string, unknown>, lowPriority?: boolean): Job;
}

function harness(deployment: DeploymentSettingsInput, workers: Record<string, unknown> = {}): Harness {
  const clock = new ManualClock(0);
  const core = new EmulatorCore(parseEmulatorConfig({ apiKey: 'model-test-key', endpoints: [EP], workers, deployments: { [EP]: deployment } }), clock, { subServices: [] });
  open = core;
  const ep = core.endpoints.get(EP) as QueueEndpoint;
  return {
    clock,
    ep,
    async tick(ms) {
      for (let t = 0; t < ms; t += 10) {
        clock.advance(Math.min(10, ms - t));
        for (let i = 0; i < 6; i += 1) await Promise.resolve();
      }
    },
    workers: () => (ep.health() as { workers: Record<string, number> }).workers,
    submit: (input = {}, lowPriority = false) => ep.submit('run', { input, policy: { lowPriority } }),
  };
}

const constant = (ms: number) => ({ kind: 'constant' as const, ms });
const record = (h: Harness, j: Job) => h.ep.record(j) as { status: string; delayTime: number; executionTime: number };

describe('scaler decisions (pure)', () => {
  const v = (o: Partial<ScalerView>): ScalerView => ({ workers: 0, freeSlots: 0, workersMax: 5, jobsPerWorker: 1, queuedNormal: 0, inProgress: 0, ...o });
  it('REQUEST_COUNT aims for ceil((inQueue + inProgress) / value) workers within max', () => {
    const s = { type: 'REQUEST_COUNT', jobsPerWorkerTarget: 2 } as const;
    expect(startsOnChange(s, v({ queuedNormal: 5 }))).toBe(3);
    expect(startsOnChange(s, v({ queuedNormal: 3, inProgress: 2, workers: 1 }))).toBe(2);
    expect(startsOnChange(s, v({ queuedNormal: 30, workers: 4 }))).toBe(1);
    expect(startsOnChange(s, v({ queuedNormal: 1, inProgress: 1, workers: 1 }))).toBe(0);
  });
  it('QUEUE_DELAY starts nothing on a change, and on its check covers the overdue jobs no starting worker will take', () => {
    expect(startsOnChange({ type: 'QUEUE_DELAY', delayMs: 4000, checkIntervalMs: 1000 }, v({ queuedNormal: 9 }))).toBe(0);
    expect(startsOnCheck(3, 1, { workers: 1, workersMax: 5, jobsPerWorker: 1 })).toBe(2);
    expect(startsOnCheck(5, 0, { workers: 0, workersMax: 5, jobsPerWorker: 2 })).toBe(3);
    expect(startsOnCheck(9, 0, { workers: 3, workersMax: 5, jobsPerWorker: 1 })).toBe(2);
    expect(startsOnCheck(2, 2, { workers: 2, workersMax: 5, jobsPerWorker: 1 })).toBe(0);
  });
  it("the emulator's own QUEUE_DEPTH scaler starts workers for jobs beyond the free slots once depth wait", () => {
    const s = { type: 'QUEUE_DEPTH', depth: 2 } as const;
    expect(startsOnChange(s, v({ queuedNormal: 3, freeSlots: 2 }))).toBe(0);
    expect(startsOnChange(s, v({ queuedNormal: 4, freeSlots: 1 }))).toBe(3);
  });
});

describe('deployment model on the manual clock', () => {
  it('QUEUE_DELAY: a worker starts at the first check after a job waited more than scalerValue s, and the job starts after its cold start', async () => {
    const h = harness({ workersMin: 0, workersMax: 3, scalerType: 'QUEUE_DELAY', scalerValue: 4, idleTimeoutS: 5, timing: { coldStart: constant(2000), execution: constant(20_000) } });
    const job = h.submit();
    await h.tick(4000);
    // At 4000 ms the job has waited exactly 4 s, not more: no worker yet.
    expect(h.workers()['initializing']).toBe(0);
    await h.tick(1000);
    expect(h.workers()['initializing']).toBe(1);
    // Two more jobs: the starting worker's one slot is taken by the first job, so each needs its own.
    h.submit();
    h.submit();
    await h.tick(2000);
    expect(record(h, job)).toMatchObject({ status: 'IN_PROGRESS', delayTime: 7000 });
    expect(h.workers()['initializing']).toBe(0);
    await h.tick(3000); // t = 10 s: the two have waited 5 s
    expect(h.workers()['initializing']).toBe(2);
  });

  it('REQUEST_COUNT: ceil((inQueue + inProgress) / scalerValue) workers start at once, within workersMax', () => {
    const h = harness({ workersMin: 0, workersMax: 4, scalerType: 'REQUEST_COUNT', scalerValue: 2, timing: { coldStart: constant(1000), execution: constant(10_000) } });
    for (let i = 0; i < 5; i += 1) h.submit();
    expect(h.workers()['initializing']).toBe(3);
    for (let i = 0; i < 6; i += 1) h.submit();
    expect(h.workers()['initializing']).toBe(4);
  });

  it('startOnArrival: a job finding no free slot starts a worker at once under QUEUE_DELAY; false waits for the check', async () => {
    const on = harness({ workersMin: 0, workersMax: 2, scalerType: 'QUEUE_DELAY', scalerValue: 4, startOnArrival: true, timing: { coldStart: constant(3000), execution: constant(5000) } });
    on.submit();
    expect(on.workers()['initializing']).toBe(1);
    on.submit();
    on.submit();
    // Two workers for three jobs: workersMax; the third waits for a slot.
    expect(on.workers()['initializing']).toBe(2);
    await open?.close();
    open = undefined;
    const off = harness({ workersMin: 0, workersMax: 2, scalerType: 'QUEUE_DELAY', scalerValue: 4, startOnArrival: false, timing: { coldStart: constant(3000), execution: constant(5000) } });
    off.submit();
    expect(off.workers()['initializing']).toBe(0);
    await off.tick(5_000);
    expect(off.workers()['initializing']).toBe(1);
  });

  it("the emulator's workers section resolves to startOnArrival (its queue-depth scaler at depth 1); a deployment naming a scaler does not", () => {
    const core = new EmulatorCore(parseEmulatorConfig({ apiKey: 'model-test-key', endpoints: [EP, 'b', 'c'], deployments: { b: { scalerType: 'QUEUE_DELAY' }, c: { scalerType: 'QUEUE_DELAY', startOnArrival: true } } }), new ManualClock(0), { subServices: [] });
    open = core;
    expect(core.poolSettings(EP)).toMatchObject({ startOnArrival: true, scaler: { type: 'QUEUE_DEPTH', depth: 1 } });
    expect(core.poolSettings('b')).toMatchObject({ startOnArrival: false });
    expect(core.poolSettings('c')).toMatchObject({ startOnArrival: true });
  });

  it.each(['QUEUE_DELAY', 'REQUEST_COUNT'] as const)('%s: lowPriority jobs never start a worker', async (scalerType) => {
    const h = harness({ workersMin: 0, workersMax: 3, scalerType, scalerValue: 1, timing: { coldStart: constant(1000) } });
    for (let i = 0; i < 4; i += 1) h.submit({}, true);
    await h.tick(30_000);
    expect(h.workers()).toMatchObject({ initializing: 0, idle: 0, running: 0 });
    expect((h.ep.health() as { jobs: { inQueue: number } }).jobs.inQueue).toBe(4);
    // A normal job starts one, which then takes the queue in order.
    h.submit();
    await h.tick(scalerType === 'QUEUE_DELAY' ? 2_000 : 0);
    expect(h.workers()['initializing']).toBe(1);
  });

  it('a flex worker stops exactly idleTimeoutS after its last job; an active one stays', async () => {
    const h = harness({ workersMin: 1, workersMax: 2, scalerType: 'REQUEST_COUNT', scalerValue: 1, idleTimeoutS: 7, timing: { coldStart: constant(1000), execution: constant(2000) } });
    h.submit();
    h.submit();
    await h.tick(1000 + 2000); // both workers ready at 1 s, jobs end at 3 s
    expect(h.workers()).toMatchObject({ idle: 2, running: 0 });
    await h.tick(6990);
    expect(h.workers()['idle']).toBe(2);
    await h.tick(10);
    expect(h.workers()['idle']).toBe(1);
    await h.tick(60_000);
    expect(h.workers()['idle']).toBe(1);
  });

  it('billing: active and flex seconds apart, each worker rounded up to the second, initializing not billed, priced per GPU', async () => {
    const h = harness({
      workersMin: 1, workersMax: 2, scalerType: 'REQUEST_COUNT', scalerValue: 1, idleTimeoutS: 5, gpuTypeId: 'H100 PRO', gpuCount: 2,
      timing: { coldStart: constant(1500), execution: constant(2300) },
    });
    h.submit();
    h.submit();
    await h.tick(20_000);
    const b = h.ep.model.meter.snapshot(h.clock.now());
    // Active: ready at 1.5 s, up to now (20 s): 18.5 s -> 19. Flex: ready 1.5 s, job to 3.8 s, idle 5 s to 8.8 s: 7.3 s -> 8.
    expect(b.activeS).toBe(19);
    expect(b.flexS).toBe(8);
    expect(b.billedS).toBe(27);
    expect(b.initializingS).toBeCloseTo(3, 9);
    expect(b.runningS).toBeCloseTo(4.6, 9);
    expect(b.idleS).toBeCloseTo(18.5 + 7.3 - 4.6, 9);
    expect(b.coldStarts).toBe(2);
    expect(b.peakWorkers).toBe(2);
    const price = DEFAULT_PRICES['H100 PRO']!;
    expect(b.costUsd).toBeCloseTo((19 * price.activePerS + 8 * price.flexPerS) * 2, 12);
    expect(b.price?.source).toMatch(/default price table of \d{4}-\d{2}-\d{2}/);
  });

  it('throttled and initializing time is not billed; /health counts the throttled worker', async () => {
    const h = harness({ workersMin: 1, workersMax: 1, timing: { coldStart: constant(1000), throttle: { probability: 1, duration: constant(3000) } }, prices: { '4090 PRO': { flexPerS: 1, activePerS: 0.5 } } });
    await h.tick(1000);
    expect(h.workers()).toMatchObject({ throttled: 1, initializing: 0, idle: 0 });
    await h.tick(2500);
    expect(h.workers()).toMatchObject({ throttled: 0, initializing: 1 });
    await h.tick(6500); // t = 10 s: idle since 4 s
    const b = h.ep.model.meter.snapshot(h.clock.now());
    expect(b).toMatchObject({ throttledS: 3, initializingS: 1, billedS: 6, activeS: 6, flexS: 0, throttledStarts: 1, costUsd: 3 });
    expect(b.price?.source).toBe('deployment prices override');
  });

  it('overhead and dispatch: the job joins the queue after the overhead, starts after the dispatch delay; delayTime holds only the latter', async () => {
    const h = harness({ workersMin: 1, workersMax: 1, timing: { coldStart: constant(0), overhead: constant(300), dispatch: constant(100), execution: constant(1000) } });
    const job = h.submit();
    expect(record(h, job)).toMatchObject({ status: 'IN_QUEUE', delayTime: 0 });
    await h.tick(350);
    expect(record(h, job).status).toBe('IN_QUEUE');
    expect(h.workers()['running']).toBe(1);
    await h.tick(1050);
    expect(record(h, job)).toMatchObject({ status: 'COMPLETED', delayTime: 100, executionTime: 1000 });
    expect((job.endedAtMs ?? 0) - job.submittedAtMs).toBe(300 + 100 + 1000);
    // Cancelled in its overhead or its dispatch: gone from the counts, its worker slot free.
    const early = h.submit();
    expect(h.ep.cancel(early.id).ok).toBe(true);
    const onTheWay = h.submit();
    await h.tick(350);
    expect(h.workers()['running']).toBe(1);
    expect(h.ep.cancel(onTheWay.id).ok).toBe(true);
    expect(h.workers()).toMatchObject({ running: 0, idle: 1 });
    expect((h.ep.health() as { jobs: { inQueue: number } }).jobs.inQueue).toBe(0);
  });

  it('execution by input class; a job with mock_* fields keeps the mock-worker contract', async () => {
    const h = harness({
      workersMin: 4, workersMax: 4,
      timing: { coldStart: constant(0), execution: { byInputField: 'size', classes: { small: constant(100), large: constant(5000) }, default: constant(1000) } },
    });
    const small = h.submit({ size: 'small' });
    const large = h.submit({ size: 'large' });
    const other = h.submit({ size: 'medium' });
    const mock = h.submit({ mock_delay: 2 });
    await h.tick(6000);
    expect([small, large, other, mock].map((j) => record(h, j).executionTime)).toEqual([100, 5000, 1000, 2000]);
  });

  it('streaming: the first chunk, then a chunk every gap until the execution time; tokens counted', async () => {
    const h = harness({ workersMin: 1, workersMax: 1, timing: { coldStart: constant(0), execution: constant(1000), stream: { firstChunk: constant(200), chunkGap: constant(100), tokensPerChunk: 5 } } });
    const job = h.submit();
    await h.tick(250);
    expect(h.ep.takeStream(job).stream).toHaveLength(1);
    await h.tick(800);
    // Chunks at 200, 300, ..., 1000 ms.
    expect(h.ep.takeStream(job).stream).toHaveLength(8);
    expect(record(h, job)).toMatchObject({ status: 'COMPLETED', executionTime: 1000 });
    expect(h.ep.model.meter.snapshot(h.clock.now()).tokens).toBe(45);
  });

  it('the same seed and traffic give the same timings; another seed others; a reset replays the run', async () => {
    const deployment = (seed: number): DeploymentSettingsInput => ({
      seed, workersMin: 0, workersMax: 3, scalerType: 'REQUEST_COUNT', scalerValue: 1,
      timing: {
        coldStart: { kind: 'mixture', p: 0.5, first: { kind: 'lognormal', medianMs: 500, sigma: 0.3 }, second: { kind: 'uniform', minMs: 3000, maxMs: 6000 } },
        dispatch: { kind: 'lognormal', medianMs: 50, sigma: 0.5 },
        execution: { kind: 'lognormal', medianMs: 800, sigma: 0.6 },
      },
    });
    const run = async (h: Harness) => {
      const jobs: Job[] = [];
      for (let i = 0; i < 8; i += 1) {
        jobs.push(h.submit());
        await h.tick(400);
      }
      await h.tick(20_000);
      return { timings: jobs.map((j) => [record(h, j).delayTime, record(h, j).executionTime]), billedS: h.ep.model.meter.snapshot(h.clock.now()).billedS };
    };
    const a = await run(harness(deployment(11)));
    const b = await run(harness(deployment(11)));
    const c = await run(harness(deployment(12)));
    expect(a.timings.every(([d, e]) => d! > 0 && e! > 0)).toBe(true);
    expect(b).toEqual(a);
    expect(c.timings).not.toEqual(a.timings);
  });
});

describe('deployments in the emulator config', () => {
  const parse = (deployments: unknown, workers: unknown = {}) => () => parseEmulatorConfig({ apiKey: 'model-test-key', endpoints: [EP], workers, deployments });
  it('names every problem: unknown endpoint, min above max (with the workers section), unpriced GPU, bad distribution', () => {
    expect(parse({ other: {} })).toThrow(/deployments\.other: no such endpoint/);
    expect(parse({ [EP]: { workersMax: 2 } }, { min: 3, max: 5 })).toThrow(/workersMin \(3\) exceeds workersMax \(2\)/);
    expect(parse({ [EP]: { gpuTypeId: 'TPU' } })).toThrow(/"TPU" has no price/);
    expect(parse({ [EP]: { gpuTypeId: 'TPU', prices: { TPU: { flexPerS: 0.001, activePerS: 0.0008 } } } })).not.toThrow();
    expect(parse({ [EP]: { idleTimeoutS: 0 } })).toThrow(/idleTimeoutS must be 1\.\.3600/);
    expect(parse({ [EP]: { timing: { coldStart: { kind: 'uniform', minMs: 9, maxMs: 1 } } } })).toThrow(/minMs must not exceed/);
  });
  it('an endpoint without a deployment keeps the workers section and the emulator\'s own scaler', () => {
    const core = new EmulatorCore(parseEmulatorConfig({ apiKey: 'model-test-key', endpoints: [EP, 'b'], workers: { min: 2, max: 4 }, deployments: { b: { workersMin: 0, scalerType: 'QUEUE_DELAY' } } }), new ManualClock(0), { subServices: [] });
    open = core;
    expect(core.poolSettings(EP)).toMatchObject({ min: 2, max: 4, scaler: { type: 'QUEUE_DEPTH', depth: 1 } });
    expect(core.poolSettings('b')).toMatchObject({ min: 0, max: 4, scaler: { type: 'QUEUE_DELAY', delayMs: 4000 } });
  });
});
