// A reference driver of one worker's engine for the tests: requests arrive at given times, steps
// run back to back, and every request's token times come out. Requests arriving at the same instant
// join before a step begins then; an arrival at the instant a step ends waits for the step begun
// then (the tests draw arrivals off the step grid, so that tie does not arise).
import { EngineSeq, WorkerEngine, type EngineScheduling } from '../../../src/deployment/index.js';

export interface Arrival {
  readonly atMs: number;
  readonly prompt: number;
  readonly out: number;
}

/** Run one worker's engine over `arrivals` (sorted by time): each request's token times. */
export function drive(e: EngineScheduling, arrivals: readonly Arrival[]): number[][] {
  const engine = new WorkerEngine<number>(e);
  const times: number[][] = arrivals.map(() => []);
  let next = 0;
  let stepEndsAt = Infinity;
  for (;;) {
    const arrivalAt = next < arrivals.length ? (arrivals[next] as Arrival).atMs : Infinity;
    if (arrivalAt === Infinity && stepEndsAt === Infinity) break;
    let now: number;
    if (stepEndsAt <= arrivalAt) {
      now = stepEndsAt;
      for (const s of engine.end()) (times[s.owner] as number[]).push(now);
    } else {
      now = arrivalAt;
      while (next < arrivals.length && (arrivals[next] as Arrival).atMs === now) {
        const a = arrivals[next] as Arrival;
        engine.add(new EngineSeq(a.prompt, a.out, next));
        next += 1;
      }
      if (engine.busy) continue;
    }
    const step = engine.begin();
    stepEndsAt = step === undefined ? Infinity : now + step.durationMs;
  }
  return times;
}
