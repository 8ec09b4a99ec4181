// A reference queue worker speaking the worker protocol of WIRE-COMPAT: it takes
// jobs (job-take long-poll, or job-take-batch), runs a handler module, streams chunks
// (job-stream), posts results and progress (job-done), heartbeats (ping) and stops jobs
// the service cancels (job-stop), and retires after a job that asks for a refresh (stopPod).
// Runs against the emulator (`--external-workers`) or any service that hands out the same
// RUNPOD_WEBHOOK_* URLs.
import { request, Agent } from 'undici';
import { WORKER_PROTOCOL } from '../spec/index.js';
import { redactSecrets } from '../errors.js';
import { sleepUntilAborted as sleep } from '../client/sleep.js';

/** What a handler gets besides the job. */
export interface WorkerJobContext {
  readonly signal: AbortSignal;
  /** The id of the worker running the job (changes when the worker is recycled). */
  readonly workerId: string;
  /** Stream one chunk now (job-stream). */
  stream(chunk: unknown): Promise<void>;
  /** Interim output while the job runs (job-done with status IN_PROGRESS). */
  progress(output: unknown): Promise<void>;
  /** Ask for this worker to be recycled after the job (`stopPod`, the SDK's refresh_worker). */
  refreshWorker(): void;
}

export interface WorkerJob {
  readonly id: string;
  readonly input: Record<string, unknown>;
  readonly [extra: string]: unknown;
}

/**
 * A handler returns the output, or is an async generator: each yielded value is streamed as
 * one chunk and the output is what it returns (the list of yielded values when it returns
 * nothing). Throwing fails the job with the error's message. A returned plain object with
 * `refresh_worker: true` (the Python SDK's convention; the key is removed from the output) or a
 * call of `ctx.refreshWorker()` recycles the worker after the job: the result carries
 * `stopPod: true` and the worker takes no more jobs, finishes the ones it runs and stops.
 */
export type WorkerHandler = (job: WorkerJob, ctx: WorkerJobContext) => Promise<unknown> | AsyncGenerator<unknown, unknown, void>;

/** The URL templates of WIRE-COMPAT; `$ID` is the worker id (take) or the job id (done, stream). */
export interface WorkerUrls {
  getJob: string;
  postOutput: string;
  postStream: string;
  ping: string;
  /** job-stop and job-take-batch derive from getJob when not given. */
  stop?: string;
  takeBatch?: string;
}

export interface WorkerOptions {
  readonly urls: WorkerUrls;
  readonly apiKey: string;
  readonly workerId: string;
  readonly handler: WorkerHandler;
  /** Jobs run at once (>1 uses job-take-batch). */
  readonly concurrency?: number;
  readonly pingIntervalMs?: number;
  /** How often running jobs are checked against job-stop (without stopLongPoll; after an error with it). */
  readonly stopPollMs?: number;
  /**
   * Ask job-stop again as soon as it answers, idle or not, as the official Python worker does:
   * the service holds the call open until it has a stop for this worker.
   */
  readonly stopLongPoll?: boolean;
  /**
   * Ignore a stop for a job taken less than this many ms ago (0, the default: never). Models the
   * official Python worker, which drops a stop arriving before it created the job's task (~100 ms).
   */
  readonly dropStopsWithinMs?: number;
  readonly signal: AbortSignal;
  readonly log?: (line: string) => void;
}

export interface WorkerStats {
  taken: number;
  completed: number;
  failed: number;
  stopped: number;
  /** Stops ignored under dropStopsWithinMs. */
  droppedStops: number;
  /** The worker retired because a job asked for a refresh (stopPod). */
  recycled: boolean;
}

/** URLs from the environment a worker is started with (RUNPOD_WEBHOOK_*, RUNPOD_POD_ID). */
export function urlsFromEnv(env: NodeJS.ProcessEnv): { urls: WorkerUrls; workerId: string; apiKey: string; pingIntervalMs: number } | undefined {
  const getJob = env['RUNPOD_WEBHOOK_GET_JOB'];
  const postOutput = env['RUNPOD_WEBHOOK_POST_OUTPUT'];
  const postStream = env['RUNPOD_WEBHOOK_POST_STREAM'];
  const ping = env['RUNPOD_WEBHOOK_PING'];
  const workerId = env['RUNPOD_POD_ID'];
  const apiKey = env['RUNPOD_AI_API_KEY'];
  if (!getJob || !postOutput || !postStream || !ping || !workerId || !apiKey) return undefined;
  const interval = Number(env['RUNPOD_PING_INTERVAL'] ?? WORKER_PROTOCOL.defaultPingIntervalMs);
  return { urls: { getJob, postOutput, postStream, ping }, workerId, apiKey, pingIntervalMs: Number.isFinite(interval) && interval > 0 ? interval : WORKER_PROTOCOL.defaultPingIntervalMs };
}

/** The URL set the emulator hands out for `base` (http://host:port), endpoint and worker. */
export function emulatorUrls(base: string, endpointId: string, workerId: string): WorkerUrls {
  const ep = `${base}/v2/${encodeURIComponent(endpointId)}`;
  const w = encodeURIComponent(workerId);
  return {
    getJob: `${ep}/job-take/$ID?gpu=emulated`,
    takeBatch: `${ep}/job-take-batch/$ID?gpu=emulated`,
    stop: `${ep}/job-stop/$ID?gpu=emulated`,
    postOutput: `${ep}/job-done/${w}/$ID?gpu=emulated`,
    postStream: `${ep}/job-stream/${w}/$ID?gpu=emulated`,
    ping: `${ep}/ping/${w}`,
  };
}

function isAsyncGenerator(v: unknown): v is AsyncGenerator<unknown, unknown, void> {
  return typeof v === 'object' && v !== null && typeof (v as AsyncGenerator)[Symbol.asyncIterator] === 'function' && typeof (v as AsyncGenerator).next === 'function';
}

/** A returned `{refresh_worker: true, ...rest}`: the rest is the output, and the worker is recycled. */
function splitRefresh(output: unknown): { output: unknown; refresh: boolean } {
  if (typeof output !== 'object' || output === null || Array.isArray(output) || (output as Record<string, unknown>)['refresh_worker'] !== true) return { output, refresh: false };
  const { refresh_worker: _refresh, ...rest } = output as Record<string, unknown>;
  return { output: rest, refresh: true };
}

/** Run the worker loop until `signal` aborts or a job asks for a refresh; resolves with what it did. */
export async function runWorker(o: WorkerOptions): Promise<WorkerStats> {
  const concurrency = Math.max(1, o.concurrency ?? 1);
  const log = o.log ?? (() => {});
  const stats: WorkerStats = { taken: 0, completed: 0, failed: 0, stopped: 0, droppedStops: 0, recycled: false };
  // A refresh aborts `retire`: no more takes; running jobs finish, then ping and stop polls end.
  const retire = new AbortController();
  const takeSignal = AbortSignal.any([o.signal, retire.signal]);
  const quiet = new AbortController();
  const backgroundSignal = AbortSignal.any([o.signal, quiet.signal]);
  const agent = new Agent({ connections: concurrency + 4, headersTimeout: WORKER_PROTOCOL.workerHttpTimeoutMs, bodyTimeout: WORKER_PROTOCOL.workerHttpTimeoutMs });
  const running = new Map<string, AbortController>();
  /** performance.now() at each running job's take (dropStopsWithinMs). */
  const takenAt = new Map<string, number>();
  const withId = (tpl: string, id: string) => tpl.replace('$ID', encodeURIComponent(id));
  const withQuery = (url: string, q: Record<string, string>) => `${url}${url.includes('?') ? '&' : '?'}${new URLSearchParams(q).toString()}`;
  const headers = { authorization: o.apiKey };

  const post = async (url: string, body: unknown): Promise<void> => {
    const res = await request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify(body),
      dispatcher: agent,
    });
    await res.body.dump();
    if (res.statusCode !== 200) log(`worker: POST ${redactSecrets(url)} answered ${res.statusCode}`);
  };

  const runJob = async (job: WorkerJob): Promise<void> => {
    const ac = new AbortController();
    running.set(job.id, ac);
    const signal = AbortSignal.any([ac.signal, o.signal]);
    const streamUrl = withQuery(withId(o.urls.postStream, job.id), { isStream: 'false' });
    let refresh = false;
    const ctx: WorkerJobContext = {
      signal,
      workerId: o.workerId,
      stream: (chunk) => post(streamUrl, { output: chunk }),
      progress: (output) => post(withQuery(withId(o.urls.postOutput, job.id), { isStream: 'false' }), { status: 'IN_PROGRESS', output }),
      refreshWorker: () => {
        refresh = true;
      },
    };
    let result: { output: unknown } | { error: string };
    let streamed = false;
    try {
      const r = o.handler(job, ctx);
      if (isAsyncGenerator(r)) {
        streamed = true;
        const yielded: unknown[] = [];
        let step = await r.next();
        while (!step.done) {
          if (signal.aborted) break;
          yielded.push(step.value);
          await ctx.stream(step.value);
          step = await r.next();
        }
        result = { output: step.done && step.value !== undefined ? step.value : yielded };
      } else {
        const split = splitRefresh(await r);
        if (split.refresh) refresh = true;
        result = { output: split.output };
      }
    } catch (e) {
      result = { error: e instanceof Error ? e.message : String(e) };
    }
    running.delete(job.id);
    takenAt.delete(job.id);
    if (ac.signal.aborted) {
      stats.stopped += 1;
      return;
    }
    if ('error' in result) stats.failed += 1;
    else stats.completed += 1;
    if (refresh) {
      stats.recycled = true;
      retire.abort();
    }
    try {
      await post(withQuery(withId(o.urls.postOutput, job.id), { isStream: String(streamed) }), refresh ? { ...result, stopPod: true } : result);
    } catch (e) {
      log(`worker: could not post the result of ${job.id}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  const take = async (): Promise<WorkerJob[]> => {
    const free = concurrency - running.size;
    const batch = free > 1;
    const base = batch ? (o.urls.takeBatch ?? o.urls.getJob.replace('/job-take/', '/job-take-batch/')) : o.urls.getJob;
    const q: Record<string, string> = { job_in_progress: running.size > 0 ? '1' : '0' };
    if (batch) q['batch_size'] = String(free);
    const res = await request(withQuery(withId(base, o.workerId), q), { headers, dispatcher: agent, signal: takeSignal });
    if (res.statusCode === 204) {
      await res.body.dump();
      return [];
    }
    if (res.statusCode === 429) {
      await res.body.dump();
      await sleep(WORKER_PROTOCOL.takeBackoffAfter429Ms, takeSignal);
      return [];
    }
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      log(`worker: job-take answered ${res.statusCode}: ${redactSecrets(text.slice(0, 200))}`);
      await sleep(1_000, takeSignal);
      return [];
    }
    const body: unknown = await res.body.json();
    const list = Array.isArray(body) ? body : [body];
    return list.filter((j): j is WorkerJob => typeof j === 'object' && j !== null && typeof (j as WorkerJob).id === 'string');
  };

  const pingLoop = async () => {
    while (!backgroundSignal.aborted) {
      try {
        const res = await request(withQuery(withId(o.urls.ping, o.workerId), { job_id: [...running.keys()].join(','), runpod_version: 'qbench' }), { headers, dispatcher: agent });
        await res.body.dump();
      } catch {
        // the next ping tries again
      }
      await sleep(o.pingIntervalMs ?? WORKER_PROTOCOL.defaultPingIntervalMs, backgroundSignal);
    }
  };

  const dropWithinMs = o.dropStopsWithinMs ?? 0;
  const stopJob = (id: string) => {
    const t = takenAt.get(id);
    if (t === undefined) return;
    if (performance.now() - t < dropWithinMs) {
      stats.droppedStops += 1;
      return;
    }
    running.get(id)?.abort(new Error('stopped by the service'));
  };

  const stopLoop = async () => {
    const stopUrl = o.urls.stop ?? o.urls.getJob.replace('/job-take/', '/job-stop/');
    const longPoll = o.stopLongPoll === true;
    while (!backgroundSignal.aborted) {
      if (!longPoll) await sleep(o.stopPollMs ?? 200, backgroundSignal);
      if ((!longPoll && running.size === 0) || backgroundSignal.aborted) continue;
      try {
        const res = await request(withQuery(withId(stopUrl, o.workerId), { job_in_progress: running.size > 0 ? '1' : '0' }), { headers, dispatcher: agent, signal: backgroundSignal });
        if (res.statusCode === 200) {
          const b = (await res.body.json()) as { jobsToStop?: unknown };
          for (const id of Array.isArray(b.jobsToStop) ? b.jobsToStop : []) stopJob(String(id));
        } else {
          await res.body.dump();
          if (longPoll && res.statusCode !== 204) await sleep(o.stopPollMs ?? 200, backgroundSignal);
        }
      } catch {
        // Aborted at shutdown, or the service is unreachable: try again after a pause.
        if (longPoll) await sleep(o.stopPollMs ?? 200, backgroundSignal);
      }
    }
  };

  const inFlight = new Set<Promise<void>>();
  const background = [pingLoop(), stopLoop()];
  while (!takeSignal.aborted) {
    if (running.size >= concurrency) {
      await Promise.race(inFlight);
      continue;
    }
    let jobs: WorkerJob[];
    try {
      jobs = await take();
    } catch (e) {
      if (takeSignal.aborted) break;
      log(`worker: job-take failed: ${e instanceof Error ? e.message : String(e)}`);
      await sleep(1_000, takeSignal);
      continue;
    }
    for (const job of jobs) {
      stats.taken += 1;
      takenAt.set(job.id, performance.now());
      const p = runJob(job).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  }
  await Promise.allSettled([...inFlight]);
  quiet.abort();
  await Promise.allSettled(background);
  await agent.close();
  return stats;
}
