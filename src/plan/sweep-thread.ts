// A sweep's worker thread: it holds the twin, the traffic and the grid (its workerData), runs
// the chunks of tasks the main thread hands it, and posts their figures back in task order.
import { parentPort, workerData } from 'node:worker_threads';
import type { ArrivalSchedule } from '../sim/index.js';
import { errorReply, runTask, type SweepInput, type SweepReply, type SweepRequest } from './sweep.js';

const port = parentPort;
// A plain Error: only src/plan/sweep.ts starts this module, always as a worker thread.
if (!port) throw new Error('sweep-thread must run in a worker thread');
const input = workerData as SweepInput;
const schedules = new Map<number, ArrivalSchedule>();
port.on('message', (m: SweepRequest) => {
  let reply: SweepReply;
  try {
    const figures = [];
    for (let t = m.from; t < m.to; t += 1) figures.push(runTask(input, t, schedules));
    reply = { type: 'done', from: m.from, figures };
  } catch (e) {
    reply = errorReply(e);
  }
  port.postMessage(reply);
});
