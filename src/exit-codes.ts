// Process exit codes, one table (k6 errext/exitcodes style). docs/reference/exit-codes.md is
// generated from it; the README's short table is checked against it by test/unit/exit-codes.test.ts.

export const EXIT = {
  /** Every required check and threshold passed. */
  OK: 0,
  /** The target failed a check, a threshold, a fuzz property or a comparison; or no setting of a plan met its SLOs. */
  TARGET_FAILED: 1,
  /** Bad usage: unknown flag, value out of range, invalid config or scenario file. */
  USAGE: 2,
  /** qbench itself broke (a bug, an unexpected exception). */
  INTERNAL: 3,
  /** Nothing valid was measured: the load generator, not the target, was the bottleneck; or a calibration completed no job. */
  INVALID_MEASUREMENT: 4,
  /** The target could not be reached at all (connection refused, DNS, TLS). */
  TARGET_UNREACHABLE: 5,
  /** Interrupted by SIGINT/SIGTERM before the run finished. */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_DESCRIPTIONS: Readonly<Record<ExitCode, string>> = {
  0: 'pass: every required check and threshold passed',
  1: 'the target failed a check, threshold, fuzz property or comparison, or no planned setting met its SLOs',
  2: 'usage or configuration error',
  3: 'internal error in qbench',
  4: 'invalid measurement: the load generator could not keep up, or a calibration completed no job',
  5: 'target unreachable',
  130: 'interrupted',
};
