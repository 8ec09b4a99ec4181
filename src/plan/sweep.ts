// Running a plan's simulations: every setting with every seed, spread over worker threads (each
// takes the next chunk of tasks as it frees up) or run here on one thread, with the results in
// grid order whatever finished first, so that the same sweep always answers the same.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { QbenchError, isQbenchError, type ErrorCode } from '../errors.js';
import type { EmulatorConfig } from '../emulator/config.js';
import { arrivalSchedule, simulate, type ArrivalSchedule, type TrafficProfile } from '../sim/index.js';
import type { ScalingSettings, SimulationFigures } from '../sim/types.js';
import { threadEntry } from '../threads.js';

export interface SweepInput {
  readonly twin: EmulatorConfig;
  readonly endpointId: string;
  readonly traffic: TrafficProfile;
  readonly settings: readonly ScalingSettings[];
  readonly seeds: readonly number[];
}

export interface SweepResult {
  /** Per setting (grid order), per seed (in the order given). */
  readonly runs: SimulationFigures[][];
  readonly events: number;
  readonly wallMs: number;
  readonly threads: number;
}

export interface SweepOptions {
  /** Worker threads; 1 runs every simulation on this thread. Default: the machine's available parallelism. */
  readonly threads?: number | undefined;
  /** Called as simulations finish: done of total. */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Messages between the sweep and its threads. */
export type SweepRequest = { readonly type: 'run'; readonly from: number; readonly to: number };
export type SweepReply =
  | { readonly type: 'done'; readonly from: number; readonly figures: SimulationFigures[] }
  | { readonly type: 'error'; readonly code: ErrorCode | undefined; readonly message: string };

/** Task t is setting floor(t / seeds), seed t % seeds: a setting's seeds are neighbours. */
export function runTask(input: SweepInput, t: number, schedules: Map<number, ArrivalSchedule>): SimulationFigures {
  const settings = input.settings[Math.floor(t / input.seeds.length)] as ScalingSettings;
  const seed = input.seeds[t % input.seeds.length] as number;
  let schedule = schedules.get(seed);
  if (schedule === undefined) {
    // One schedule per seed, drawn once: every setting of the sweep sees the same arrivals.
    schedule = arrivalSchedule(input.traffic, seed);
    schedules.set(seed, schedule);
  }
  return simulate({ twin: input.twin, endpointId: input.endpointId, settings, traffic: input.traffic, seed, schedule });
}

function collect(input: SweepInput, figures: readonly (SimulationFigures | undefined)[], wallMs: number, threads: number): SweepResult {
  const n = input.seeds.length;
  const runs = input.settings.map((_, i) => figures.slice(i * n, (i + 1) * n) as SimulationFigures[]);
  return { runs, events: figures.reduce((a, f) => a + (f?.events ?? 0), 0), wallMs, threads };
}

function aborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new QbenchError('QB_ERR_ABORTED', 'the sweep was interrupted');
}

/** Every simulation on this thread, in order (the single-threaded peer of the bench, and --threads 1). */
export function sweepHere(input: SweepInput, o: Omit<SweepOptions, 'threads'> = {}): SweepResult {
  const started = performance.now();
  const total = input.settings.length * input.seeds.length;
  const schedules = new Map<number, ArrivalSchedule>();
  const figures: SimulationFigures[] = [];
  for (let t = 0; t < total; t += 1) {
    aborted(o.signal);
    figures.push(runTask(input, t, schedules));
    o.onProgress?.(t + 1, total);
  }
  return collect(input, figures, performance.now() - started, 1);
}

/** Tasks a thread takes at a time: small enough to share the tail evenly, large enough to keep messages few. */
function chunkSize(total: number, threads: number): number {
  return Math.max(1, Math.min(16, Math.floor(total / (threads * 8))));
}

/** The sweep on `threads` worker threads (the machine's parallelism by default; 1: on this thread). */
export async function runSweep(input: SweepInput, o: SweepOptions = {}): Promise<SweepResult> {
  const total = input.settings.length * input.seeds.length;
  const threads = Math.max(1, Math.min(o.threads ?? availableParallelism(), total));
  if (threads === 1) return sweepHere(input, o);
  const started = performance.now();
  const figures: Array<SimulationFigures | undefined> = new Array<SimulationFigures | undefined>(total);
  const size = chunkSize(total, threads);
  const spec = threadEntry(import.meta.url, 'sweep-thread');
  const workers: Worker[] = [];
  let next = 0;
  let done = 0;
  const give = (w: Worker): boolean => {
    if (next >= total) return false;
    const from = next;
    next = Math.min(total, next + size);
    w.postMessage({ type: 'run', from, to: next } satisfies SweepRequest);
    return true;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let finished = 0;
      const fail = (e: Error) => reject(e);
      const onAbort = () => fail(new QbenchError('QB_ERR_ABORTED', 'the sweep was interrupted'));
      o.signal?.addEventListener('abort', onAbort, { once: true });
      for (let i = 0; i < threads; i += 1) {
        const w = new Worker(spec.entry, { ...spec.options, workerData: input satisfies SweepInput });
        workers.push(w);
        let idle = false;
        w.on('message', (m: SweepReply) => {
          if (m.type === 'error') {
            fail(new QbenchError(m.code ?? 'QB_ERR_INTERNAL', m.code === undefined ? `a sweep thread failed: ${m.message}` : m.message));
            return;
          }
          m.figures.forEach((f, k) => {
            figures[m.from + k] = f;
          });
          done += m.figures.length;
          o.onProgress?.(done, total);
          if (!idle && !give(w)) {
            idle = true;
            finished += 1;
            if (finished === threads) {
              o.signal?.removeEventListener('abort', onAbort);
              resolve();
            }
          }
        });
        w.on('error', (e) => fail(new QbenchError('QB_ERR_INTERNAL', `a sweep thread crashed: ${e.message}`, {}, { cause: e })));
        w.on('exit', (code) => {
          if (!idle) fail(new QbenchError('QB_ERR_INTERNAL', `a sweep thread exited (code ${code}) before its work was done`));
        });
        if (!give(w)) {
          idle = true;
          finished += 1;
        }
      }
    });
  } finally {
    await Promise.allSettled(workers.map((w) => w.terminate()));
  }
  return collect(input, figures, performance.now() - started, threads);
}

/** The reply of a thread whose simulation threw: a qbench error keeps its code (a bad twin is exit 2). */
export function errorReply(e: unknown): SweepReply {
  return { type: 'error', code: isQbenchError(e) ? e.code : undefined, message: e instanceof Error ? e.message : String(e) };
}
