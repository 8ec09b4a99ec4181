// The autoscaler's decisions, as pure functions of what the pool and queue hold now: how many
// workers to start. lowPriority jobs are never counted as waiting (§2.1: they do not trigger
// scaling). The pool applies the answer within workersMax; scale-down is the idle timeout's.
import type { ScalerSettings } from './resolve.js';

/** What a scaling decision reads. */
export interface ScalerView {
  /** Simulated workers up or starting (throttled, initializing, ready), draining ones excluded. */
  readonly workers: number;
  /** Free job slots on those workers, starting ones included. */
  readonly freeSlots: number;
  readonly workersMax: number;
  readonly jobsPerWorker: number;
  /** Queued jobs that are not lowPriority. */
  readonly queuedNormal: number;
  /** Jobs on a worker (running, or handed to one and about to run). */
  readonly inProgress: number;
}

const room = (v: Pick<ScalerView, 'workers' | 'workersMax'>) => Math.max(0, v.workersMax - v.workers);

/**
 * Workers started the moment a job joins the queue (the deployment's startOnArrival): one slot
 * for each queued job (not lowPriority) beyond the free slots of the workers up or starting,
 * within workersMax. The scaler's own rule acts on top of it.
 */
export function startsOnArrival(v: ScalerView): number {
  const need = v.queuedNormal - v.freeSlots;
  if (need <= 0) return 0;
  return Math.min(room(v), Math.ceil(need / v.jobsPerWorker));
}

/**
 * Workers to start now for the scalers that follow every change of the queue (QUEUE_DEPTH,
 * REQUEST_COUNT). QUEUE_DELAY answers 0 here: it acts only on its periodic check.
 */
export function startsOnChange(s: ScalerSettings, v: ScalerView): number {
  switch (s.type) {
    case 'QUEUE_DEPTH': {
      const need = v.queuedNormal - v.freeSlots;
      if (v.queuedNormal <= 0 || need < s.depth) return 0;
      return Math.min(room(v), Math.ceil(need / v.jobsPerWorker));
    }
    case 'REQUEST_COUNT': {
      const target = Math.ceil((v.queuedNormal + v.inProgress) / s.jobsPerWorkerTarget);
      return Math.min(room(v), Math.max(0, target - v.workers));
    }
    case 'QUEUE_DELAY':
      return 0;
  }
}

/**
 * QUEUE_DELAY's periodic check: `overdue` jobs (not lowPriority) have waited more than its delay.
 * Enough workers start to give each a slot, counting the free slots of workers already
 * starting (a job they will take needs no second worker).
 */
export function startsOnCheck(overdue: number, startingFreeSlots: number, v: Pick<ScalerView, 'workers' | 'workersMax' | 'jobsPerWorker'>): number {
  const uncovered = overdue - startingFreeSlots;
  if (uncovered <= 0) return 0;
  return Math.min(room(v), Math.ceil(uncovered / v.jobsPerWorker));
}
