// A deployment that answers at once, for calibration tests with no sockets: jobs complete with
// seeded timings (a /run job is IN_QUEUE for two /status polls, IN_PROGRESS for two); after a
// /run job /health shows its worker starting for two polls, running for two, then idle for
// `idlePolls` polls, then gone (the idle timeout has passed); while /runsync jobs are in flight
// it runs, and after the last answers it is idle at once.
import type { GivenSettings } from '../../../src/calibrate/infer.js';
import { estimateCost, type CalibrationPlan } from '../../../src/calibrate/plan.js';
import type { CalibrationReport } from '../../../src/calibrate/report.js';
import { runCalibration, type CalibrationOptions } from '../../../src/calibrate/run-calibration.js';
import type { DeploymentPort } from '../../../src/calibrate/target.js';
import type { LlmProbePort } from '../../../src/calibrate/llm-probe.js';
import { sampleMs, seededRng, type Distribution } from '../../../src/deployment/index.js';
import type { HealthRecord, JobRecord } from '../../../src/spec/index.js';

export interface FakeDeployment extends DeploymentPort {
  submitted(): number;
  readonly cancelled: string[];
}

const EXECUTION: Distribution = { kind: 'lognormal', medianMs: 900, sigma: 0.3 };
const DELAY: Distribution = { kind: 'lognormal', medianMs: 40, sigma: 0.2 };

/** `runSyncMs`: real ms a /runsync answer takes (a burst then spans several /health polls). */
export function fakeDeployment(idlePolls = 2, seed = 1, runSyncMs = 0): FakeDeployment {
  const rng = seededRng(seed);
  let submitted = 0;
  let pollsSinceJob = Infinity;
  const cancelled: string[] = [];
  const records = new Map<string, JobRecord>();
  const statusPolls = new Map<string, number>();
  const record = (id: string): JobRecord => {
    const r = records.get(id) ?? { id, status: 'COMPLETED', delayTime: Math.round(sampleMs(DELAY, rng)), executionTime: Math.round(sampleMs(EXECUTION, rng)) };
    records.set(id, r);
    return r;
  };
  // /runsync jobs in flight (runSyncMs > 0): their worker runs until the last one answers.
  let syncInFlight = 0;
  const health = (): HealthRecord => {
    if (syncInFlight > 0) return { jobs: { completed: submitted, failed: 0, inProgress: syncInFlight, inQueue: 0, retried: 0 }, workers: { idle: 0, running: 1, initializing: 0 } };
    pollsSinceJob += 1;
    const p = pollsSinceJob;
    const w = { idle: p > 4 && p <= 4 + idlePolls ? 1 : 0, running: p > 2 && p <= 4 ? 1 : 0, initializing: p <= 2 ? 1 : 0 };
    return { jobs: { completed: submitted, failed: 0, inProgress: w.running, inQueue: 0, retried: 0 }, workers: w };
  };
  // A /runsync job has ended when it answers: its worker is idle at the next poll.
  const submit = (prefix: string, polls: number) => {
    submitted += 1;
    pollsSinceJob = polls;
    return `${prefix}-${submitted}`;
  };
  return {
    submitted: () => submitted,
    cancelled,
    runSync: async () => {
      const id = submit('sync', 4);
      if (runSyncMs > 0) {
        syncInFlight += 1;
        await new Promise((r) => setTimeout(r, runSyncMs));
        syncInFlight -= 1;
        pollsSinceJob = 4;
      }
      return record(id);
    },
    run: () => Promise.resolve({ id: submit('job', 0) }),
    status: (id) => {
      const n = (statusPolls.get(id) ?? 0) + 1;
      statusPolls.set(id, n);
      return Promise.resolve(n <= 2 ? { id, status: 'IN_QUEUE' as const } : n <= 4 ? { id, status: 'IN_PROGRESS' as const } : record(id));
    },
    stream: async function* () {
      /* a handler that does not stream */
    },
    cancel: (id) => {
      cancelled.push(id);
      return Promise.resolve();
    },
    health: () => Promise.resolve(health()),
  };
}

/** One calibration of `port` with `plan` (one input class, time scale 1, /health polled every ms); `llmPort` answers the LLM probe. */
export function calibrateFake(port: DeploymentPort, plan: CalibrationPlan, given: GivenSettings = {}, llmPort?: LlmProbePort, llmScheduling?: CalibrationOptions['llmScheduling']): Promise<CalibrationReport> {
  const cost = estimateCost(plan, { workersMax: { value: 3, source: 'service default' }, idleTimeoutS: { value: 5, source: 'service default' }, gpuTypeId: given.gpuTypeId, gpuCount: 1, pricePerS: undefined });
  return runCalibration({
    queueUrl: 'http://127.0.0.1:9',
    endpointId: 'ep',
    apiKey: 'unused-key',
    classes: [{ id: 'default', body: { input: {} } }],
    classField: undefined,
    plan,
    cost,
    given,
    timeScale: { value: 1, source: 'default' },
    healthPollMs: 1,
    seed: 1,
    command: ['qbench', 'calibrate'],
    signal: new AbortController().signal,
    log: () => undefined,
    port,
    llmPort,
    llmScheduling,
  });
}
