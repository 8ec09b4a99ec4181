// The handler contract of a simulated worker: a function of the job input that sleeps on
// the emulator clock, may stream chunks and progress, and ends with one outcome. Handlers
// never touch job state directly; the worker turns their calls into §3.1 transitions.
import type { Clock } from '../../clock.js';

export interface HandlerContext {
  readonly clock: Clock;
  /** Aborted when the job is cancelled, times out, expires or its worker dies. */
  readonly signal: AbortSignal;
  readonly jobId: string;
  /** Stream one chunk (§2.3): the handler's incremental output and optional metrics. */
  emit(output: unknown, metrics?: Record<string, unknown>): void;
  /** Interim output while IN_PROGRESS (WIRE-COMPAT "progress updates"). */
  progress(output: unknown): void;
  /** Jobs running on this job's worker now, this one included. */
  workerJobs(): number;
  /** Jobs waiting in the endpoint's queue now. */
  pendingJobs(): number;
  /** Record this job's KV-cache tokens on its worker; answers the worker's total. */
  setKvTokens(tokens: number): number;
  readonly llm: { readonly kvCacheTokens: number; readonly contentionPerJob: number };
}

export type HandlerOutcome =
  | { readonly kind: 'output'; readonly output: unknown; readonly refresh: boolean }
  | { readonly kind: 'error'; readonly error: string; readonly refresh: boolean }
  /** The worker process dies mid-job (mock_crash): the job fails and the worker is gone. */
  | { readonly kind: 'crash'; readonly error: string };

/** A handler may answer its outcome directly when it has nothing to wait for: the job ends in the call. */
export type Handler = (input: Record<string, unknown>, ctx: HandlerContext) => Promise<HandlerOutcome> | HandlerOutcome;
