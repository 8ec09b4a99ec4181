// The cost of a load run on an emulator: the difference of its deployment model's billing meter
// (GET /_qbench/counters) between the start and the end of the run, with cost per 1,000 jobs
// and per million streamed tokens. A meter reset during the run (POST /_qbench/reset) leaves
// the end's totals as the run's.
import type { EndpointCountersFacts } from '../target/index.js';
import type { RunCost } from '../result/model.js';

const ended = (f: EndpointCountersFacts) => f.health.jobs.completed + f.health.jobs.failed;

export function runCost(endpointId: string, before: EndpointCountersFacts, after: EndpointCountersFacts): RunCost {
  const a = after.billing;
  const wasReset = a.workerStarts < before.billing.workerStarts || ended(after) < ended(before);
  const b = wasReset ? undefined : before.billing;
  const delta = (k: 'billedS' | 'activeS' | 'flexS' | 'initializingS' | 'throttledS' | 'coldStarts' | 'tokens') => Math.max(0, a[k] - (b?.[k] ?? 0));
  const jobs = Math.max(0, ended(after) - (wasReset ? 0 : ended(before)));
  const tokens = delta('tokens');
  const costUsd = a.costUsd === null ? null : Math.max(0, a.costUsd - (b?.costUsd ?? 0));
  return {
    endpointId,
    gpuTypeId: a.gpuTypeId,
    gpuCount: a.gpuCount,
    billedS: delta('billedS'),
    activeS: delta('activeS'),
    flexS: delta('flexS'),
    initializingS: delta('initializingS'),
    throttledS: delta('throttledS'),
    coldStarts: delta('coldStarts'),
    jobs,
    tokens,
    costUsd,
    costPer1000JobsUsd: costUsd === null || jobs === 0 ? null : (costUsd / jobs) * 1_000,
    costPerMillionTokensUsd: costUsd === null || tokens === 0 ? null : (costUsd / tokens) * 1_000_000,
    priceSource: a.price?.source ?? null,
  };
}
