// The model of the §3.1 job state machine the model-based run checks answers against: what a
// plan lets the service reach, ttl and retention with their margins, and the health bounds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RETENTION_MS, TTL_MS, reachableByService, JOB_STATES } from '../../../src/spec/index.js';
import { JOB_PLANS, PLAN_NAMES } from '../../../src/fuzz/model/job-plans.js';
import { gaugeUpperBounds, observe, possibleAt, serviceClosure, type JobModel, type ModelJob, type ModelState } from '../../../src/fuzz/model/job-model.js';

const MARGIN = 2_000;

function job(over: Partial<ModelJob> = {}): ModelJob {
  return {
    id: 'j',
    submit: 'run',
    plan: JOB_PLANS.quick,
    waitGiven: false,
    submittedAtMs: 0,
    ttlMs: JOB_PLANS.quick.ttlMs,
    possible: new Set<ModelState>(['IN_QUEUE']),
    observedAtMs: 0,
    endedAfterMs: undefined,
    endedByMs: undefined,
    ttlCertain: true,
    ...over,
  };
}
const model = (...jobs: ModelJob[]): JobModel => ({ jobs, retries: 0, marginMs: MARGIN });

describe('serviceClosure follows the §3.1 service rows the plan allows', () => {
  it('a plan reaches only its own terminal state', () => {
    expect([...serviceClosure(new Set(['IN_QUEUE']), JOB_PLANS.quick)].sort()).toEqual(['COMPLETED', 'IN_PROGRESS', 'IN_QUEUE']);
    expect([...serviceClosure(new Set(['IN_QUEUE']), JOB_PLANS.fail)].sort()).toEqual(['FAILED', 'IN_PROGRESS', 'IN_QUEUE']);
    expect([...serviceClosure(new Set(['IN_QUEUE']), JOB_PLANS.timeout)].sort()).toEqual(['IN_PROGRESS', 'IN_QUEUE', 'TIMED_OUT']);
    expect([...serviceClosure(new Set(['CANCELLED']), JOB_PLANS.quick)]).toEqual(['CANCELLED']);
  });

  it('is always within what the spec table says the service can reach', () => {
    fc.assert(
      fc.property(fc.constantFrom(...JOB_STATES), fc.constantFrom(...PLAN_NAMES), (from, plan) => {
        const spec = reachableByService(from);
        for (const s of serviceClosure(new Set([from]), JOB_PLANS[plan])) expect(spec.has(s)).toBe(true);
      }),
    );
  });
});

describe('possibleAt applies ttl and retention with a margin', () => {
  it('a completed /runsync job stays until retention may end, and is gone once it surely has', () => {
    const j = job({ submit: 'runsync', possible: new Set(['COMPLETED']), endedAfterMs: 0, endedByMs: 10, observedAtMs: 10 });
    const m = model(j);
    expect(possibleAt(m, j, RETENTION_MS.runsyncDefault - MARGIN - 1).has('deleted')).toBe(false);
    expect(possibleAt(m, j, RETENTION_MS.runsyncDefault - MARGIN).has('deleted')).toBe(true);
    expect([...possibleAt(m, j, 10 + RETENTION_MS.runsyncDefault + MARGIN)]).toEqual(['deleted']);
  });

  it('with wait, /runsync retention may last up to runsyncMax', () => {
    const j = job({ submit: 'runsync', waitGiven: true, possible: new Set(['COMPLETED']), endedAfterMs: 0, endedByMs: 10, observedAtMs: 10 });
    const t = 10 + RETENTION_MS.runsyncDefault + MARGIN;
    expect(possibleAt(model(j), j, t)).toEqual(new Set(['COMPLETED', 'deleted']));
    expect([...possibleAt(model(j), j, 10 + RETENTION_MS.runsyncMax + MARGIN)]).toEqual(['deleted']);
  });

  it('ttl deletes in any state; after a retry deletion by ttl is only possible', () => {
    const j = job({ plan: JOB_PLANS['short-ttl'], ttlMs: TTL_MS.min });
    expect(possibleAt(model(j), j, TTL_MS.min - MARGIN - 1).has('deleted')).toBe(false);
    expect([...possibleAt(model(j), j, TTL_MS.min + MARGIN)]).toEqual(['deleted']);
    const retried = job({ plan: JOB_PLANS['short-ttl'], ttlMs: TTL_MS.min, ttlCertain: false });
    const later = possibleAt(model(retried), retried, TTL_MS.min + MARGIN);
    expect(later.has('deleted')).toBe(true);
    expect(later.has('IN_PROGRESS')).toBe(true);
  });

  it('observing a terminal state starts the retention window at the previous observation', () => {
    const j = job({ observedAtMs: 100 });
    observe(j, 'COMPLETED', 500, 510);
    expect(j.endedAfterMs).toBe(100);
    expect(j.endedByMs).toBe(510);
    expect([...j.possible]).toEqual(['COMPLETED']);
  });
});

describe('health gauges', () => {
  it('upper bounds count the jobs that may be queued or running', () => {
    const a = job({ id: 'a' });
    const b = job({ id: 'b', possible: new Set(['CANCELLED']) });
    const c = job({ id: 'c', possible: new Set(['IN_PROGRESS']) });
    expect(gaugeUpperBounds(model(a, b, c), 1)).toEqual({ inQueue: 1, inProgress: 2 });
  });
});
