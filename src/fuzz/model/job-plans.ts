// Jobs the model-based run submits, driven by the mock-worker inputs of WIRE-COMPAT
// (`mock_delay`, `mock_error`) and short §2.1 policies, so that every §3.1 state is reached
// on the emulator and on a real endpoint running the mock worker alike.
import { EXECUTION_TIMEOUT_MS, SECOND_MS, TTL_MS, type JobState } from '../../spec/index.js';

export type PlanName = 'quick' | 'slow' | 'fail' | 'timeout' | 'short-ttl';

export interface JobPlan {
  readonly name: PlanName;
  /** The §2.1 request body. */
  readonly body: { readonly input: Record<string, unknown>; readonly policy?: Record<string, number> };
  /** The terminal state the handler drives the job to (if nothing else happens first). */
  readonly outcome: Extract<JobState, 'COMPLETED' | 'FAILED' | 'TIMED_OUT'>;
  /** Emulated ms the job lives from submission (policy.ttl or its default). */
  readonly ttlMs: number;
  /** Emulated ms the handler takes. */
  readonly runMs: number;
}

/** Long enough for a cancel or a purge to meet the job while it runs: six minimum execution timeouts. */
const SLOW_MS = 6 * EXECUTION_TIMEOUT_MS.min;
/** Twice the minimum execution timeout: a job that must time out. */
const OVER_TIMEOUT_MS = 2 * EXECUTION_TIMEOUT_MS.min;

const seconds = (ms: number) => ms / SECOND_MS;

export const JOB_PLANS: Readonly<Record<PlanName, JobPlan>> = {
  quick: { name: 'quick', body: { input: { mock_return: 'qbench-model' } }, outcome: 'COMPLETED', ttlMs: TTL_MS.defaultValue, runMs: 0 },
  slow: { name: 'slow', body: { input: { mock_delay: seconds(SLOW_MS) } }, outcome: 'COMPLETED', ttlMs: TTL_MS.defaultValue, runMs: SLOW_MS },
  fail: { name: 'fail', body: { input: { mock_error: true } }, outcome: 'FAILED', ttlMs: TTL_MS.defaultValue, runMs: 0 },
  timeout: {
    name: 'timeout',
    body: { input: { mock_delay: seconds(OVER_TIMEOUT_MS) }, policy: { executionTimeout: EXECUTION_TIMEOUT_MS.min } },
    outcome: 'TIMED_OUT',
    ttlMs: TTL_MS.defaultValue,
    runMs: EXECUTION_TIMEOUT_MS.min,
  },
  'short-ttl': {
    name: 'short-ttl',
    body: { input: { mock_delay: seconds(SLOW_MS) }, policy: { ttl: TTL_MS.min } },
    outcome: 'COMPLETED',
    ttlMs: TTL_MS.min,
    runMs: SLOW_MS,
  },
};

export const PLAN_NAMES = Object.keys(JOB_PLANS) as PlanName[];

/** The longest any plan keeps a worker busy (bounds how long a run waits for its jobs to settle). */
export const LONGEST_PLAN_MS = Math.max(...Object.values(JOB_PLANS).map((p) => p.runMs));
