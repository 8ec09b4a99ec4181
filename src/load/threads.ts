// Multi-core runs with worker_threads: N shards, each taking every Nth intended
// start of the global schedule so the global rate is split exactly; their 1 s buckets carry
// encoded HDR histograms, merged losslessly by the main thread's Aggregator.
import { Worker } from 'node:worker_threads';
import { internalError, scenarioError } from '../errors.js';
import { threadEntry } from '../threads.js';
import type { LoadTarget } from './context.js';
import type { ScenarioSource } from './loader.js';
import { threadSlot, type ProcessShard } from './sharding.js';
import type { BucketWire, ShardEndWire } from './wire.js';

export interface ThreadInit {
  readonly source?: ScenarioSource | undefined;
  /** The scenario as JSON when it has no source file (it then must hold no functions). */
  readonly scenarioJson?: unknown;
  readonly target: LoadTarget;
  /** This thread's slot in the global split (src/load/sharding.ts threadSlot). */
  readonly shardIndex: number;
  readonly shardCount: number;
  readonly state: unknown;
  /** The start is a shared instant: a thread ready after it joins late (see ShardPlan). */
  readonly lateJoin?: boolean;
}

export type ThreadMessage =
  | { type: 'ready' }
  | { type: 'bucket'; bucket: BucketWire }
  | { type: 'end'; end: ShardEndWire }
  | { type: 'error'; message: string };

export interface ThreadRunOptions {
  readonly init: Omit<ThreadInit, 'shardIndex' | 'shardCount'>;
  readonly threads: number;
  /** The process's shard of the run; its threads split that share. */
  readonly processShard?: ProcessShard | undefined;
  readonly signal: AbortSignal;
  readonly onBucket: (b: BucketWire) => void;
  /** Called once every thread has loaded its scenario; returns the shared start time. */
  readonly onReady: () => number;
}

/** Run `shardCount` worker threads to completion; resolves with every shard's end message. */
export async function runThreads(o: ThreadRunOptions): Promise<ShardEndWire[]> {
  if (o.init.source === undefined) {
    try {
      structuredClone(o.init.scenarioJson);
    } catch {
      throw scenarioError('threads > 1 needs a scenario file (custom steps and input functions cannot be sent to a thread)');
    }
  }
  try {
    structuredClone(o.init.state);
  } catch {
    throw scenarioError('threads > 1: the setup hook must return plain data (it is copied to every thread)');
  }
  const spec = threadEntry(import.meta.url, 'thread-entry');
  const workers: Worker[] = [];
  let ready = 0;
  const ends = await Promise.all(
    Array.from({ length: o.threads }, (_, shardIndex) => {
      const slot = threadSlot(o.processShard, shardIndex, o.threads);
      const w = new Worker(spec.entry, { ...spec.options, workerData: { ...o.init, shardIndex: slot.index, shardCount: slot.count } satisfies ThreadInit });
      workers.push(w);
      return new Promise<ShardEndWire>((resolve, reject) => {
        let end: ShardEndWire | undefined;
        const onAbort = () => w.postMessage({ type: 'abort' });
        o.signal.addEventListener('abort', onAbort, { once: true });
        w.on('message', (m: ThreadMessage) => {
          if (m.type === 'ready') {
            ready++;
            if (ready === o.threads) {
              const t0Ms = o.onReady();
              for (const x of workers) x.postMessage({ type: 'start', t0Ms });
            }
          } else if (m.type === 'bucket') o.onBucket(m.bucket);
          else if (m.type === 'end') end = m.end;
          else reject(internalError(`load thread ${shardIndex} failed: ${m.message}`));
        });
        w.on('error', (e) => reject(internalError(`load thread ${shardIndex} crashed: ${e.message}`, e)));
        w.on('exit', (code) => {
          o.signal.removeEventListener('abort', onAbort);
          if (end) resolve(end);
          else reject(internalError(`load thread ${shardIndex} exited (code ${code}) without a result`));
        });
      });
    }),
  ).catch(async (e: unknown) => {
    await Promise.allSettled(workers.map((w) => w.terminate()));
    throw e;
  });
  return ends;
}
