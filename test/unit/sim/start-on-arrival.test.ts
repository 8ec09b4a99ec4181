// The emulator's own scaling (its workers section: workers 0..3, a constant 3 s cold start, a 2 s
// idle timeout, a worker started at once for a job that finds none) against twins of it, on the
// virtual clock with no socket: the twin calibrate writes now (startOnArrival measured true, a
// QUEUE_DELAY scaler of 1 s beside it) gives every job of a 13-job schedule the truth's end to end;
// the twin that assumes the scaler's check (startOnArrival false) makes every cold job wait for
// that check, about +35% on each.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/emulator/clock.js';
import { endpointDeployment, type EmulatorConfig } from '../../../src/emulator/config.js';
import { EmulatorCore } from '../../../src/emulator/core.js';
import type { QueueEndpoint } from '../../../src/emulator/queue/index.js';
import type { Job } from '../../../src/emulator/queue/job.js';
import { parseTwin } from '../../../src/sim/index.js';

const EP = 'ep';
const constant = (ms: number) => ({ kind: 'constant' as const, ms });
/** The handler's run time, the same in truth and twins (measured right, as the issue says of every other setting). */
const EXECUTION_MS = 2_000;
const COLD_START_MS = 3_000;

/** Seconds: each job finds no free worker (those close together start one each; the others come after the idle timeout stopped them). */
const SCHEDULE_S = [0, 0.3, 9.1, 18.4, 18.6, 18.9, 28.2, 37.7, 46.5, 55.35, 55.8, 65.05, 74.6];

/** The truth: the emulator's workers section, with the timing of the handler given by the model (no deployment scaling setting). */
const truth = parseTwin({ endpoints: [EP], workers: { min: 0, max: 3, coldStartMs: COLD_START_MS, idleTimeoutMs: 2_000 }, deployments: { [EP]: { timing: { execution: constant(EXECUTION_MS) } } } });

/** A twin as calibrate writes it: every setting explicit, the cold start fitted. */
const twin = (startOnArrival: boolean) =>
  parseTwin({
    endpoints: [EP],
    deployments: { [EP]: { workersMin: 0, workersMax: 3, idleTimeoutS: 2, scalerType: 'QUEUE_DELAY', scalerValue: 1, startOnArrival, jobsPerWorker: 1, timing: { coldStart: constant(COLD_START_MS), execution: constant(EXECUTION_MS) } } },
  });

/** Each job's end to end (ms), in schedule order. */
function e2eByJob(config: EmulatorConfig, scheduleS: readonly number[] = SCHEDULE_S): number[] {
  const clock = new VirtualClock(0);
  const order = new Map<string, number>();
  const e2e: number[] = [];
  const core = new EmulatorCore(config, clock, {
    subServices: [],
    observer: {
      jobStarted: () => undefined,
      jobEnded: (job: Job) => {
        e2e[order.get(job.id) as number] = (job.endedAtMs as number) - job.submittedAtMs;
      },
    },
  });
  const ep = core.endpoints.get(EP) as QueueEndpoint;
  scheduleS.forEach((s, i) => clock.setTimer(s * 1_000, () => order.set(ep.submit('run', { input: {} }).id, i)));
  clock.run(Infinity, () => e2e.filter((x) => x !== undefined).length === scheduleS.length);
  expect(e2e.filter((x) => x !== undefined)).toHaveLength(scheduleS.length);
  void core.close();
  return e2e;
}

describe("the emulator's default scaling and its twin", () => {
  it('the truth resolves to startOnArrival: a job finding no worker starts one at once', () => {
    expect(endpointDeployment(truth, EP).startOnArrival).toBe(true);
  });

  const truthE2e = e2eByJob(truth);
  const tolerance = 0.01;

  it(`the twin with startOnArrival measured gives every job the truth's end to end (within ${tolerance * 100}%)`, () => {
    const twinE2e = e2eByJob(twin(true));
    console.log(`truth e2e s: ${truthE2e.map((x) => (x / 1_000).toFixed(2)).join(' ')}\ntwin  e2e s: ${twinE2e.map((x) => (x / 1_000).toFixed(2)).join(' ')}`);
    twinE2e.forEach((x, i) => expect(Math.abs(x - (truthE2e[i] as number)) / (truthE2e[i] as number), `job ${i}`).toBeLessThanOrEqual(tolerance));
  });

  it('the twin that waits for the scaler check (startOnArrival false) is about +35% on every job', () => {
    const oldE2e = e2eByJob(twin(false));
    const ratios = oldE2e.map((x, i) => x / (truthE2e[i] as number));
    console.log(`old twin e2e s: ${oldE2e.map((x) => (x / 1_000).toFixed(2)).join(' ')}\nratios: ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
    for (const r of ratios) expect(r).toBeGreaterThan(1 + tolerance);
    const mean = ratios.reduce((a, r) => a + r, 0) / ratios.length;
    expect(mean).toBeGreaterThan(1.25);
    expect(mean).toBeLessThan(1.45);
  });

  it('beyond workersMax and with warm workers the two agree too: a burst of 6 on 3 workers, jobs that find a worker idle', () => {
    const schedule = [0, 0, 0, 0, 0, 0, 6.5, 7, 20, 20.5, 21];
    const t = e2eByJob(truth, schedule);
    const w = e2eByJob(twin(true), schedule);
    // Three wait for the first three workers' jobs; the job at 7 s meets a worker still idle.
    expect(t.slice(0, 6)).toEqual([5_000, 5_000, 5_000, 7_000, 7_000, 7_000]);
    w.forEach((x, i) => expect(Math.abs(x - (t[i] as number)) / (t[i] as number), `job ${i}`).toBeLessThanOrEqual(tolerance));
  });
});
