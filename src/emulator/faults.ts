// Fault switches: each one breaks exactly one rule of the spec, so that the conformance
// suite and the fuzzer can be shown to catch it (`qbench emulate --fault <name>`,
// `qbench check --self-test`). The catalogue is the contract between the emulator, which
// implements each switch, and the suites, which must detect each one.

export interface FaultInfo {
  /** The spec clause the fault breaks, e.g. '§3.1'. */
  readonly clause: string;
  readonly description: string;
  /** Which part of the emulator implements it. */
  readonly part: 'queue' | 'rest' | 'graphql';
}

export const FAULTS = {
  'retry-from-completed': { clause: '§3.1', part: 'queue', description: 'retry is accepted from COMPLETED (and requeues the job)' },
  'rate-limit-late': { clause: '§8', part: 'queue', description: '429 starts only 10% past the documented request count of every operation' },
  'no-concurrency-cap': { clause: '§8', part: 'queue', description: 'the concurrency column of the rate table is not enforced' },
  'retention-halved': { clause: '§2.2', part: 'queue', description: 'results are deleted after half of their retention window' },
  'ttl-ignored': { clause: '§2.1', part: 'queue', description: 'policy.ttl never deletes a job' },
  'execution-timeout-ignored': { clause: '§2.1', part: 'queue', description: 'policy.executionTimeout never ends a running job' },
  'purge-removes-running': { clause: '§3.1', part: 'queue', description: '/purge-queue also cancels jobs in progress' },
  'health-miscount': { clause: '§2.4', part: 'queue', description: 'health jobs.inQueue is one more than the real count' },
  'stream-chunk-oversize': { clause: '§4.1', part: 'queue', description: 'stream chunks are not split: one chunk can exceed 1 MB' },
  'wrong-sync-id-prefix': { clause: '§2.2', part: 'queue', description: '/runsync ids lack the sync- prefix' },
  'payload-cap-off': { clause: '§8', part: 'queue', description: 'the /run and /runsync payload caps are not enforced' },
  'auth-off': { clause: '§5', part: 'queue', description: 'the queue endpoint accepts requests without a valid key' },
  'webhook-not-retried': { clause: '§6', part: 'queue', description: 'a failed webhook call is not retried' },
  'webhook-retry-fast': { clause: '§6', part: 'queue', description: 'webhook retries come 1 s apart instead of 10 s' },
  'cancel-does-not-stop-running': { clause: '§3.1', part: 'queue', description: 'cancel of a running job answers CANCELLED but the job runs on and completes' },
  'wait-bounds-unchecked': { clause: '§4.1', part: 'queue', description: '/runsync accepts wait values outside 1000..300000' },
  'policy-bounds-unchecked': { clause: '§2.1', part: 'queue', description: 'policy.executionTimeout and policy.ttl bounds are not validated' },
  'missing-input-accepted': { clause: '§2.1', part: 'queue', description: 'a job request without input is accepted' },
  'purge-wrong-status-word': { clause: '§4.1', part: 'queue', description: '/purge-queue answers status "COMPLETED" instead of "completed"' },
  'retry-keeps-output': { clause: '§3.1', part: 'queue', description: 'retry keeps the previous output on the job' },
  'retry-new-id': { clause: '§3.1', part: 'queue', description: 'retry answers a new job id instead of the same one' },
  'unknown-endpoint-ok': { clause: '§7', part: 'queue', description: 'an unknown endpoint id is served like the default endpoint instead of 404' },
  'unknown-job-ok': { clause: '§7', part: 'queue', description: '/status of an unknown job answers 200 IN_QUEUE instead of 404' },
  'status-ttl-ignored': { clause: '§4.1', part: 'queue', description: '/status?ttl= does not change the job ttl' },
  'runsync-long-retention': { clause: '§2.2', part: 'queue', description: '/runsync results are kept for the /run window (30 min) instead of 1 min' },
  'run-answer-wrong-status': { clause: '§4.1', part: 'queue', description: '/run answers status QUEUED instead of IN_QUEUE' },
  'timing-fields-missing': { clause: '§2.2', part: 'queue', description: '/status omits delayTime and executionTime' },
  'retry-from-cancelled': { clause: '§3.1', part: 'queue', description: 'retry is accepted from CANCELLED' },
  'status-word-running': { clause: '§3.1', part: 'queue', description: 'a running job is answered with status "RUNNING", a word §3.1 does not have' },
  'status-lowercase': { clause: '§3.1', part: 'queue', description: 'job states are answered in lowercase ("in_queue", "completed", ...)' },
  'stream-outlives-job': { clause: '§4.1', part: 'queue', description: '/stream keeps answering IN_PROGRESS with no chunk for a job that has ended' },
  'template-update-accepts-category': { clause: '§2.5', part: 'rest', description: 'a template update accepts (and applies) category' },
  'template-name-not-unique': { clause: '§2.5', part: 'rest', description: 'two templates may share a name' },
  'template-defaults-missing': { clause: '§2.5', part: 'rest', description: 'create does not apply the documented defaults' },
  'rest-auth-off': { clause: '§5', part: 'rest', description: 'the REST interface accepts requests without a valid token' },
  'pod-stop-keeps-stock': { clause: '§3.2', part: 'graphql', description: 'podStop does not release the GPU back to stock' },
  'pod-resume-new-id': { clause: '§3.2', part: 'graphql', description: 'podResume answers a different pod id' },
  'graphql-field-omitted': { clause: '§4.3', part: 'graphql', description: 'a pod or GPU type in an answer lacks the last field its query selected' },
  'graphql-auth-off': { clause: '§5', part: 'graphql', description: 'the GraphQL interface accepts requests without a valid key' },
} as const satisfies Record<string, FaultInfo>;

export type FaultName = keyof typeof FAULTS;

export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];

export function isFaultName(name: string): name is FaultName {
  return Object.hasOwn(FAULTS, name);
}

/** The set of switched-on faults; an empty set is the clean emulator. */
export type FaultSet = ReadonlySet<FaultName>;
