// A worker thread's side of a multi-threaded run: load the same scenario (by file, index and
// overrides), run this thread's shard (every Nth intended start of the global schedule) and
// post its 1 s buckets to the main thread, which merges them losslessly.
import { parentPort, workerData } from 'node:worker_threads';
import { scenarioError } from '../errors.js';
import { loadScenarioFile, type ScenarioSource } from './loader.js';
import type { LoadTarget } from './context.js';
import { parseScenario } from './scenario.js';
import { runShard } from './shard.js';
import type { ThreadMessage, ThreadInit } from './threads.js';

async function main(): Promise<void> {
  const port = parentPort;
  // A plain Error: only src/load/threads.ts starts this module, always as a worker thread.
  if (!port) throw new Error('thread-entry must run in a worker thread');
  const init = workerData as ThreadInit;
  const controller = new AbortController();
  let start!: (t0Ms: number) => void;
  const started = new Promise<number>((resolve) => {
    start = resolve;
  });
  port.on('message', (m: { type: string; t0Ms?: number }) => {
    if (m.type === 'abort') controller.abort(new Error('aborted by the main thread'));
    if (m.type === 'start' && typeof m.t0Ms === 'number') start(m.t0Ms);
  });
  const post = (m: ThreadMessage) => port.postMessage(m);
  try {
    const scenario = init.source ? await scenarioFromSource(init.source, init.target) : parseScenario(init.scenarioJson, 'scenario');
    const end = await runShard({
      scenario,
      target: init.target,
      shardIndex: init.shardIndex,
      shardCount: init.shardCount,
      // Loading (under tsx, compiling) and warming up take a while: the schedule starts only
      // once every thread is ready, so no thread begins late.
      start: () => {
        post({ type: 'ready' });
        return started;
      },
      state: init.state,
      signal: controller.signal,
      lateJoin: init.lateJoin ?? false,
      sink: { add: (bucket) => post({ type: 'bucket', bucket }) },
    });
    post({ type: 'end', end });
  } catch (e) {
    post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  }
  port.close();
}

async function scenarioFromSource(source: ScenarioSource, target: LoadTarget) {
  const list = await loadScenarioFile(source.file, { target, params: source.params }, source.overrides);
  const found = list[source.index];
  // The user's file gave this thread a shorter list than the main thread (its factory reads something that differs).
  if (!found) throw scenarioError(`scenario ${source.index} not found in ${source.file}`, { file: source.file });
  return found.scenario;
}

void main();
