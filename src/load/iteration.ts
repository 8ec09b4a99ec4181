// One iteration of a scenario: its flow of steps (§4.1 operations: runsync; run then poll
// /status or read /stream to the end; status, stream, cancel, health, purge-queue; custom
// code), each request recorded with the 429 policy the scenario chose (count-and-stop or
// the shared backoff of src/client/backoff.ts, §7 "back off exponentially and retry").
import { HTTP_STATUS, isTerminal, type JobState } from '../spec/index.js';
import { withBackoff, resolveBackoff, type BackoffOptions } from '../client/backoff.js';
import { sleepUntilAborted } from '../client/sleep.js';
import type { HttpAnswer, IterationContext, LoadTarget, RequestSpec } from './context.js';
import type { TargetHttp } from './http.js';
import { hrNowMs, type ShardRecorder } from './recorder.js';
import { stepMetricName, type Scenario, type Step } from './scenario.js';

export interface IterationEnv {
  readonly scenario: Scenario;
  readonly target: LoadTarget;
  readonly http: TargetHttp;
  readonly recorder: ShardRecorder;
  readonly state: unknown;
  readonly shard: number;
  readonly scheduleStartMs: number;
  readonly signal: AbortSignal;
  /**
   * Mirrors `signal.aborted` as a plain field: the hot path reads this, not the signal, whose
   * hidden class can differ between the warm-up's signals and the run's (measured: a "wrong
   * map" de-optimisation at the schedule's start, then ~100 ms of recompilation).
   */
  readonly halt: { aborted: boolean };
  readonly backoff: BackoffOptions | undefined;
  /** Called before every HTTP request; false stops the iteration (request budget used up). */
  readonly takeRequestBudget: () => boolean;
  /** The shard's run of consecutive requests that got no HTTP answer (any answer resets it). */
  readonly unanswered: { streak: number };
}

/** First and largest pause after a request that got no HTTP answer, real ms. */
const NO_ANSWER_BACKOFF = { baseMs: 10, capMs: 1000 } as const;
/** A follow loop tries a job this many more times after network errors before giving it up. */
const FOLLOW_NETWORK_RETRIES = 3;

/**
 * The pause before the next request after `streak` requests in a row got no HTTP answer:
 * doubling from 10 ms to 1 s, jittered over its upper half. A closed loop or a follow loop
 * that met a dead or restarting target waits instead of spinning on refused connections.
 */
export function noAnswerBackoffMs(streak: number, random: () => number = Math.random): number {
  if (streak <= 0) return 0;
  const ceiling = Math.min(NO_ANSWER_BACKOFF.capMs, NO_ANSWER_BACKOFF.baseMs * 2 ** Math.min(streak - 1, 20));
  return ceiling / 2 + random() * (ceiling / 2);
}

class StopIteration extends Error {}

export function backoffFor(scenario: Scenario): BackoffOptions | undefined {
  return scenario.on429.mode === 'backoff' ? resolveBackoff(scenario.on429.backoff ?? {}) : undefined;
}

const statusOf = (a: HttpAnswer): string | undefined => {
  const body = a.json();
  return typeof body === 'object' && body !== null && typeof (body as { status?: unknown }).status === 'string'
    ? (body as { status: string }).status
    : undefined;
};
const idOf = (a: HttpAnswer): string | undefined => {
  const body = a.json();
  return typeof body === 'object' && body !== null && typeof (body as { id?: unknown }).id === 'string' ? (body as { id: string }).id : undefined;
};
const isTerminalStatus = (s: string | undefined) => s !== undefined && isTerminal(s as JobState);

/**
 * Run one iteration. `intendedMs` is its scheduled start (hrNow base); the first request is
 * timed from it (coordinated omission corrected), later requests from their own send.
 */
export async function runIteration(env: IterationEnv, index: number, intendedMs: number): Promise<void> {
  let nextIntendedMs: number | undefined = intendedMs;
  let stopped = false;
  const ctx: IterationContext = {
    iteration: index,
    shard: env.shard,
    target: env.target,
    scheduleStartMs: env.scheduleStartMs,
    jobId: undefined,
    state: env.state,
    signal: env.signal,
    request: (metric, spec) => recordedRequest(metric, spec),
    recordTrend: (metric, valueMs) => env.recorder.trend(metric, valueMs, hrNowMs()),
    stop: () => {
      stopped = true;
    },
  };

  async function recordedRequest(metric: string, spec: RequestSpec): Promise<HttpAnswer> {
    const intended = nextIntendedMs;
    nextIntendedMs = undefined;
    if (env.halt.aborted) throw new StopIteration();
    const once = async (attemptIntended: number | undefined): Promise<HttpAnswer> => {
      if (!env.takeRequestBudget()) throw new StopIteration();
      const issuedMs = hrNowMs();
      let sentMs = issuedMs;
      env.recorder.requestStarted(metric, issuedMs);
      const a = await env.http.send(spec, env.signal, (ms) => {
        sentMs = ms;
      });
      const endMs = hrNowMs();
      if (a.status === null) env.unanswered.streak++;
      else env.unanswered.streak = 0;
      // Corrected latency runs from the intended start (or, for a follow-up request, from
      // when the flow issued it); service time from when a connection took it.
      env.recorder.request({ metric, intendedMs: attemptIntended ?? issuedMs, sentMs, endMs, status: a.status });
      return a;
    };
    if (!env.backoff) {
      const a = await once(intended);
      // count-and-stop: the 429 is counted and the caller sees it; the iteration ends after
      // the current step.
      if (a.status === HTTP_STATUS.tooManyRequests) stopped = true;
      return a;
    }
    const logicalStart = intended ?? hrNowMs();
    let first = true;
    let attempts = 0;
    try {
      const result = await withBackoff(
        async () => {
          attempts++;
          const a = await once(first ? intended : undefined);
          first = false;
          return { status: a.status ?? 0, retryAfter: a.headers['retry-after'], value: a };
        },
        env.backoff,
        { signal: env.signal },
      );
      env.recorder.logicalRequest(metric, result.attempts.length, hrNowMs() - logicalStart, result.exhausted, hrNowMs());
      if (result.exhausted) stopped = true;
      return result.outcome.value;
    } catch (e) {
      if (!(e instanceof StopIteration) && attempts > 0) env.recorder.logicalRequest(metric, attempts, hrNowMs() - logicalStart, true, hrNowMs());
      if (env.halt.aborted) throw new StopIteration();
      throw e;
    }
  }

  try {
    for (const step of env.scenario.steps) {
      if (stopped || env.halt.aborted) break;
      await runStep(step, ctx, env);
    }
  } catch (e) {
    if (!(e instanceof StopIteration)) throw e;
  }
}

function inputOf(step: Extract<Step, { kind: 'run' | 'runsync' }>, ctx: IterationContext): Record<string, unknown> {
  const input = typeof step.input === 'function' ? step.input(ctx) : step.input;
  return { input, ...(step.policy ? { policy: step.policy } : {}) };
}

const jobPath = (op: string, id: string) => `/${op}/${encodeURIComponent(id)}`;

async function runStep(step: Step, ctx: IterationContext, env: IterationEnv): Promise<void> {
  const metric = stepMetricName(step);
  switch (step.kind) {
    case 'runsync': {
      const a = await ctx.request(metric, {
        method: 'POST',
        path: '/runsync',
        body: inputOf(step, ctx),
        ...(step.waitMs !== undefined ? { query: { wait: step.waitMs } } : {}),
      });
      ctx.jobId = idOf(a) ?? ctx.jobId;
      return;
    }
    case 'run': {
      const a = await ctx.request(metric, { method: 'POST', path: '/run', body: inputOf(step, ctx) });
      const id = idOf(a);
      ctx.jobId = id ?? ctx.jobId;
      if (step.follow === 'none' || id === undefined || a.status !== HTTP_STATUS.ok) return;
      await follow(step.follow, id, step.pollIntervalMs, step.followTimeoutMs, ctx, env);
      return;
    }
    case 'status':
    case 'stream':
    case 'cancel': {
      const id = step.jobId ?? ctx.jobId;
      if (id === undefined) throw new StopIteration();
      await ctx.request(metric, { method: step.kind === 'cancel' ? 'POST' : 'GET', path: jobPath(step.kind, id) });
      return;
    }
    case 'health':
      await ctx.request(metric, { method: 'GET', path: '/health' });
      return;
    case 'purge-queue':
      await ctx.request(metric, { method: 'POST', path: '/purge-queue' });
      return;
    case 'custom':
      await step.fn(ctx);
      return;
  }
}

/** Poll /status or read /stream until the job is terminal (or the follow timeout passes). */
async function follow(mode: 'poll' | 'stream', id: string, pollIntervalMs: number, timeoutMs: number, ctx: IterationContext, env: IterationEnv): Promise<void> {
  const deadline = hrNowMs() + timeoutMs;
  const metric = mode === 'poll' ? 'status' : 'stream';
  let retries = 0;
  while (hrNowMs() < deadline && !env.halt.aborted) {
    const a = await ctx.request(metric, { method: 'GET', path: jobPath(metric, id) });
    if (a.status === null) {
      // No answer (refused, reset, timed out): the job may still be there; pause and try
      // again a few times rather than give it up at once or ask again at once.
      if (++retries > FOLLOW_NETWORK_RETRIES) return;
      await sleep(Math.min(noAnswerBackoffMs(Math.max(env.unanswered.streak, retries)), deadline - hrNowMs()), env.signal);
      continue;
    }
    retries = 0;
    if (a.status !== HTTP_STATUS.ok) return;
    // A bare array is the spec's reading of /stream (§4.1): one answer holds the whole stream.
    if (mode === 'stream' && Array.isArray(a.json())) return;
    if (isTerminalStatus(statusOf(a))) return;
    // /stream long-polls on the server (WIRE-COMPAT); /status needs our own pause.
    if (mode === 'poll' && pollIntervalMs > 0) await sleep(pollIntervalMs, env.signal);
  }
}

/** Resolve after `ms`, or at once when `signal` aborts (the shared wait of src/client/sleep.ts). */
export const sleep = sleepUntilAborted;
