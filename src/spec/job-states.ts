// §3.1 job states and the state machine as a data table, shared by the emulator,
// the conformance checks and the model-based tests so that all three read one rule set.

export const JOB_STATES = ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** States in which a job has ended; its result retention clock runs from entering one. */
export const TERMINAL_STATES: ReadonlySet<JobState> = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

export function isTerminal(state: JobState): boolean {
  return TERMINAL_STATES.has(state);
}

/** Triggers a client can send, and the ones the service takes on its own. */
export type ClientTrigger = 'run' | 'runsync' | 'cancel' | 'retry' | 'purge';
export type ServiceTrigger = 'worker-start' | 'worker-complete' | 'worker-fail' | 'execution-timeout' | 'ttl-expired';
export type Trigger = ClientTrigger | ServiceTrigger;

export interface Transition {
  /** null: the job does not exist yet. */
  readonly from: JobState | null;
  readonly trigger: Trigger;
  readonly condition: string;
  /** 'deleted': the job is gone; later status checks answer 404. */
  readonly to: JobState | 'deleted';
  readonly also: string;
  /** true where SERVICE-SPEC.md §3.1 states the row; false for rows it only implies. */
  readonly stated: boolean;
}

/** §3.1 table, plus the service-driven rows whose exact rules the spec leaves unstated. */
export const TRANSITIONS: readonly Transition[] = [
  { from: null, trigger: 'run', condition: 'valid request', to: 'IN_QUEUE', also: 'Returns id at once.', stated: true },
  { from: null, trigger: 'runsync', condition: 'valid request', to: 'COMPLETED', also: 'Response carries output (when finished in time).', stated: true },
  { from: 'IN_QUEUE', trigger: 'cancel', condition: 'job still queued', to: 'CANCELLED', also: 'Removed before it starts.', stated: true },
  { from: 'IN_PROGRESS', trigger: 'cancel', condition: 'job running', to: 'CANCELLED', also: 'Execution is stopped.', stated: true },
  { from: 'FAILED', trigger: 'retry', condition: 'results not expired', to: 'IN_QUEUE', also: 'Same id; original input reused; previous output removed.', stated: true },
  { from: 'TIMED_OUT', trigger: 'retry', condition: 'results not expired', to: 'IN_QUEUE', also: 'Same id; original input reused; previous output removed.', stated: true },
  { from: 'IN_QUEUE', trigger: 'purge', condition: 'job still queued', to: 'deleted', also: 'Purge removes queued jobs only.', stated: true },
  ...(['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const).map(
    (from): Transition => ({ from, trigger: 'ttl-expired', condition: 'ttl elapsed', to: 'deleted', also: 'Later status checks return 404.', stated: true }),
  ),
  { from: 'IN_QUEUE', trigger: 'worker-start', condition: 'a worker is free', to: 'IN_PROGRESS', also: 'delayTime is fixed.', stated: false },
  { from: 'IN_PROGRESS', trigger: 'worker-complete', condition: 'handler returned', to: 'COMPLETED', also: 'executionTime is fixed.', stated: false },
  { from: 'IN_PROGRESS', trigger: 'worker-fail', condition: 'handler raised or worker crashed', to: 'FAILED', also: 'error is set.', stated: false },
  { from: 'IN_PROGRESS', trigger: 'execution-timeout', condition: 'ran longer than executionTimeout', to: 'TIMED_OUT', also: 'Execution is stopped.', stated: false },
];

/** §3.1 "Retry is accepted only from FAILED or TIMED_OUT." */
export const RETRYABLE_STATES: ReadonlySet<JobState> = new Set(
  TRANSITIONS.filter((t) => t.trigger === 'retry' && t.from !== null).map((t) => t.from as JobState),
);

/** States from which cancel is a transition. */
export const CANCELLABLE_STATES: ReadonlySet<JobState> = new Set(
  TRANSITIONS.filter((t) => t.trigger === 'cancel' && t.from !== null).map((t) => t.from as JobState),
);

/** The transition a trigger takes from a state, or undefined when the table has no such row. */
export function nextState(from: JobState | null, trigger: Trigger): JobState | 'deleted' | undefined {
  return TRANSITIONS.find((t) => t.from === from && t.trigger === trigger)?.to;
}

/**
 * Every state reachable from `from` by service-driven transitions alone (a queued job
 * starting, a running job ending), including `from` itself. The model-based tests accept
 * any of these after time has passed without a client command.
 */
export function reachableByService(from: JobState): ReadonlySet<JobState | 'deleted'> {
  const seen = new Set<JobState | 'deleted'>([from]);
  const queue: (JobState | 'deleted')[] = [from];
  const service: ReadonlySet<Trigger> = new Set<ServiceTrigger>(['worker-start', 'worker-complete', 'worker-fail', 'execution-timeout', 'ttl-expired']);
  while (queue.length > 0) {
    const s = queue.shift();
    if (s === undefined || s === 'deleted') continue;
    for (const t of TRANSITIONS) {
      if (t.from === s && service.has(t.trigger) && !seen.has(t.to)) {
        seen.add(t.to);
        queue.push(t.to);
      }
    }
  }
  return seen;
}
