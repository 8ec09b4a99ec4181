// What scenario code sees: the target, the per-iteration context of custom steps and input
// factories, and the run-level hooks (setup, timeline actions, analyze) that shipped
// scenarios use to drive the emulator's control routes and compute a verdict. `S` is the type
// of what the scenario's setup hook returns (its `state`).
import type { Chart, Finding, LoadScenarioResult } from '../result/model.js';
import type { Histogram } from './histogram.js';

/** Where the load goes. The API key is never logged or written to a result. */
export interface LoadTarget {
  readonly kind: 'emulator' | 'remote';
  /** Origin of the queue endpoint, e.g. http://127.0.0.1:8080 (no path, no key). */
  readonly queueUrl: string;
  readonly endpointId: string;
  readonly apiKey?: string | undefined;
  /** Emulated ms per real ms (1 on a real target). */
  readonly timeScale: number;
  /** The emulator's /_qbench/info answer when the target is an emulator (advertised limits). */
  readonly info?: Readonly<Record<string, unknown>> | undefined;
}

export interface HttpAnswer {
  /** HTTP status; null when no answer came (network error, timeout, abort). */
  readonly status: number | null;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly bodyText: string;
  readonly bytes: number;
  /** Error code of a network failure (e.g. UND_ERR_SOCKET, ECONNREFUSED). */
  readonly errorCode?: string;
  /** Parsed JSON body, undefined when the body is not JSON. */
  json(): unknown;
}

export interface RequestSpec {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below /v2/{endpointId} (scope 'endpoint', the default) or below the origin ('origin'). */
  readonly path: string;
  readonly scope?: 'endpoint' | 'origin';
  readonly query?: Readonly<Record<string, string | number>>;
  /** JSON-serialisable body, or a pre-built string/Buffer (payload-size scenarios). */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The per-iteration context handed to custom steps and input factories. */
export interface IterationContext<S = unknown> {
  /** Global iteration index (unique across threads). */
  readonly iteration: number;
  readonly shard: number;
  readonly target: LoadTarget;
  /** When the schedule started (performance.timeOrigin + performance.now() base, ms). */
  readonly scheduleStartMs: number;
  /** The job id of the iteration's last run/runsync step (or set by a custom step). */
  jobId: string | undefined;
  /** What the scenario's setup hook returned (per thread). */
  readonly state: S;
  readonly signal: AbortSignal;
  /**
   * Send one request and record it under `metric` (counts, latency, 429 policy). The first
   * request of an iteration is timed from the iteration's intended start.
   */
  request(metric: string, spec: RequestSpec): Promise<HttpAnswer>;
  /** Record a custom duration (ms) under a trend metric, e.g. time to first token. */
  recordTrend(metric: string, valueMs: number): void;
  /** End this iteration after the current step. */
  stop(): void;
}

/** The run-level context of hooks. */
export interface RunContext<S = unknown> {
  readonly target: LoadTarget;
  readonly signal: AbortSignal;
  /** An unrecorded request (control routes, setup), not counted in the scenario's metrics. */
  request(spec: RequestSpec): Promise<HttpAnswer>;
  /** A line for the progress output. */
  log(line: string): void;
  /** What setup returned (undefined while setup runs). */
  readonly state: S;
  /** When the schedule started (hrNow base, ms); before the start, the planned start. */
  readonly scheduleStartMs: number;
}

export interface Analysis {
  /**
   * inconclusive: the scenario could not set up what it judges (say why in `summary`, and
   * what in findings marked `precondition`); a violation it observed is 'fail'.
   */
  readonly status: 'pass' | 'fail' | 'info' | 'inconclusive';
  readonly summary: string;
  readonly findings: readonly Finding[];
  readonly charts?: readonly Chart[];
}

export type ResultWithoutVerdict = Omit<LoadScenarioResult, 'verdict'>;

export interface TimelineAction<S = unknown> {
  /** Real ms after the scenario's start. */
  readonly atMs: number;
  /** Logged when the action runs; '' keeps it quiet. */
  readonly label: string;
  readonly action: (ctx: RunContext<S>) => Promise<void>;
}

export interface ScenarioHooks<S = unknown> {
  /** Before the load starts; the result becomes `state` for steps and later hooks. */
  readonly setup?: (ctx: RunContext<undefined>) => Promise<S>;
  /** Actions at fixed offsets into the run (e.g. change the running worker count). */
  readonly timeline?: readonly TimelineAction<S>[];
  /** After the load (always runs, even after an abort, or a setup that threw: then no state). */
  readonly teardown?: (ctx: RunContext<S | undefined>) => Promise<void>;
  /** Compute the scenario's verdict against the documented limits. */
  readonly analyze?: (result: ResultWithoutVerdict, ctx: RunContext<S> & { trends: ReadonlyMap<string, Histogram> }) => Promise<Analysis> | Analysis;
}
