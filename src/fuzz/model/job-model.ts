// The model of the model-based run: what each job of the run may be doing now, computed
// from the §3.1 table of src/spec/job-states.ts. A client command moves a job along a row
// of the table; between observations the service may move it along any service row
// (worker-start, worker-complete/fail, execution-timeout) that its plan allows, and §2.1
// ttl and §2.2 retention may delete it once their time has come (with a margin for the
// imprecision of a clock read over HTTP).
import {
  RETENTION_MS,
  TRANSITIONS,
  isTerminal,
  type JobState,
  type ServiceTrigger,
} from '../../spec/index.js';
import type { JobPlan } from './job-plans.js';

export type ModelState = JobState | 'deleted';

export interface ModelJob {
  readonly id: string;
  readonly submit: 'run' | 'runsync';
  readonly plan: JobPlan;
  /** /runsync `wait` given (it lengthens retention up to runsyncMax, §2.2). */
  readonly waitGiven: boolean;
  /** Emulated ms when the job was submitted (ttl counts from here, §2.1). */
  readonly submittedAtMs: number;
  /** States the job may have been in at `observedAtMs` (before service moves since). */
  possible: Set<ModelState>;
  observedAtMs: number;
  /** Emulated window in which the job entered its current terminal state (retention counts from it). */
  endedAfterMs: number | undefined;
  endedByMs: number | undefined;
  /** Emulated ms the job lives from submission: the plan's policy.ttl, or what /status?ttl= set (§4.1). */
  ttlMs: number;
  /** After a retry the spec does not say whether ttl restarts: deletion by ttl is then only possible, never certain. */
  ttlCertain: boolean;
}

export interface JobModel {
  readonly jobs: ModelJob[];
  /** Retries accepted in this run. */
  retries: number;
  /** Emulated ms of slack on every time-based rule. */
  readonly marginMs: number;
}

const SERVICE_TRIGGERS: ReadonlySet<ServiceTrigger> = new Set(['worker-start', 'worker-complete', 'worker-fail', 'execution-timeout']);
const OUTCOME_TRIGGER: Readonly<Record<JobPlan['outcome'], ServiceTrigger>> = {
  COMPLETED: 'worker-complete',
  FAILED: 'worker-fail',
  TIMED_OUT: 'execution-timeout',
};

/** States reachable from `states` by the service rows of the §3.1 table that the plan can take. */
export function serviceClosure(states: ReadonlySet<ModelState>, plan: JobPlan): Set<ModelState> {
  const out = new Set(states);
  const queue = [...states];
  const ending = OUTCOME_TRIGGER[plan.outcome];
  while (queue.length > 0) {
    const s = queue.shift();
    if (s === undefined || s === 'deleted') continue;
    for (const t of TRANSITIONS) {
      if (t.from !== s || !SERVICE_TRIGGERS.has(t.trigger as ServiceTrigger)) continue;
      if (t.trigger !== 'worker-start' && t.trigger !== ending) continue;
      if (!out.has(t.to)) {
        out.add(t.to);
        queue.push(t.to);
      }
    }
  }
  return out;
}

/** §2.2 retention: shortest and longest reading for this job. */
export function retentionWindowMs(job: Pick<ModelJob, 'submit' | 'waitGiven'>): { min: number; max: number } {
  if (job.submit === 'run') return { min: RETENTION_MS.run, max: RETENTION_MS.run };
  return { min: RETENTION_MS.runsyncDefault, max: job.waitGiven ? RETENTION_MS.runsyncMax : RETENTION_MS.runsyncDefault };
}

const anyTerminal = (s: ReadonlySet<ModelState>) => [...s].some((x) => x !== 'deleted' && isTerminal(x));
const onlyTerminal = (s: ReadonlySet<ModelState>) => [...s].every((x) => x === 'deleted' || isTerminal(x));

/**
 * What the job may be at `nowMs`. `certainAtMs` (<= nowMs, the send time of the request that
 * observes it) is used for deletions that must have happened, `nowMs` for those that may have.
 */
export function possibleAt(model: JobModel, job: ModelJob, nowMs: number, certainAtMs: number = nowMs): Set<ModelState> {
  if (job.possible.size === 1 && job.possible.has('deleted')) return new Set(['deleted']);
  const s = serviceClosure(job.possible, job.plan);
  const m = model.marginMs;
  const ttlDue = job.submittedAtMs + job.ttlMs;
  if (nowMs >= ttlDue - m) s.add('deleted');
  if (job.ttlCertain && certainAtMs >= ttlDue + m) return new Set(['deleted']);
  if (anyTerminal(s)) {
    const r = retentionWindowMs(job);
    // A terminal state not yet observed may have been entered as early as the last observation.
    const endedAfter = job.endedAfterMs ?? job.observedAtMs;
    if (nowMs >= endedAfter + r.min - m) s.add('deleted');
    if (onlyTerminal(job.possible) && job.endedByMs !== undefined && certainAtMs >= job.endedByMs + r.max + m) return new Set(['deleted']);
  }
  return s;
}

/** Record that the job was seen in `state` (the caller has checked it was possible). */
export function observe(job: ModelJob, state: ModelState, sentAtMs: number, receivedAtMs: number): void {
  const wasTerminalOnly = onlyTerminal(job.possible) && job.possible.has(state);
  if (state !== 'deleted' && isTerminal(state) && !wasTerminalOnly) {
    job.endedAfterMs = job.observedAtMs;
    job.endedByMs = receivedAtMs;
  } else if (state !== 'deleted' && !isTerminal(state)) {
    job.endedAfterMs = undefined;
    job.endedByMs = undefined;
  }
  job.possible = new Set([state]);
  job.observedAtMs = Math.max(job.observedAtMs, sentAtMs);
}

/** Narrow what the job may be to `states` at the time of an answer that ruled the others out. */
export function narrow(job: ModelJob, states: ReadonlySet<ModelState>, atMs: number): void {
  const wasNonTerminal = [...job.possible].some((x) => x !== 'deleted' && !isTerminal(x));
  if (wasNonTerminal && anyTerminal(states) && job.endedAfterMs === undefined) job.endedAfterMs = job.observedAtMs;
  if (anyTerminal(states)) job.endedByMs = Math.max(job.endedByMs ?? atMs, atMs);
  job.possible = new Set(states);
  job.observedAtMs = atMs;
}

export function describeStates(s: ReadonlySet<ModelState>): string {
  return `{${[...s].sort().join(', ')}}`;
}

/**
 * §2.4 gauges the model allows: how many jobs of this run may be in each state now. Only
 * upper bounds: a job the model last saw queued may have started at any moment since.
 */
export function gaugeUpperBounds(model: JobModel, nowMs: number): { inQueue: number; inProgress: number } {
  let inQueue = 0;
  let inProgress = 0;
  for (const job of model.jobs) {
    const s = possibleAt(model, job, nowMs);
    if (s.has('IN_QUEUE')) inQueue += 1;
    if (s.has('IN_PROGRESS')) inProgress += 1;
  }
  return { inQueue, inProgress };
}
