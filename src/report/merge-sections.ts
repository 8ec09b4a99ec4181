// The sections of a result besides the scenarios, conformance and fuzz that `qbench merge`
// combines: the load run's cost (load.cost), summed over the shards when each read its own
// emulator's billing meter (or one meter at disjoint times); and the refusal, naming the
// section, of any section the merge cannot combine, so that nothing is dropped in silence.
import { QbenchError } from '../errors.js';
import type { QbenchResult, RunCost } from '../result/model.js';

interface Input {
  readonly result: QbenchResult;
  readonly source: string;
}

/** The top-level sections merge.ts combines (or rebuilds: meta, overall, incomplete). */
const MERGED_SECTIONS: ReadonlySet<string> = new Set(['schemaVersion', 'kind', 'meta', 'incomplete', 'conformance', 'load', 'fuzz', 'overall']);
/** The parts of the load section it combines. */
const MERGED_LOAD_PARTS: ReadonlySet<string> = new Set(['scenarios', 'cost']);

const refuse = (section: string, why: string): never => {
  throw new QbenchError('QB_ERR_USAGE', `qbench merge: cannot merge the ${section} section: ${why}; nothing was written`);
};

/** Throws naming the first section some input holds that the merge cannot combine. */
export function refuseUnmergeableSections(inputs: readonly Input[]): void {
  for (const { result, source } of inputs) {
    for (const key of Object.keys(result)) {
      if (MERGED_SECTIONS.has(key)) continue;
      if (key === 'plan' || key === 'llmPlan') refuse(key, `${source} holds a plan (qbench plan); a plan is one sweep over a twin, not a shard of a run: merge load results only`);
      if (key === 'llm') refuse(key, `${source} holds qbench llm runs, each level measured whole by one process, not a shard of a load run: merge load results only; to set two llm results side by side, qbench compare them`);
      refuse(key, `${source} holds it and merge does not know how to combine it`);
    }
    for (const key of Object.keys(result.load ?? {})) if (!MERGED_LOAD_PARTS.has(key)) refuse(`load.${key}`, `${source} holds it and merge does not know how to combine it`);
  }
}

const SUMMED = ['billedS', 'activeS', 'flexS', 'initializingS', 'throttledS', 'coldStarts', 'jobs', 'tokens'] as const;
const SAME = ['endpointId', 'gpuTypeId', 'gpuCount', 'priceSource'] as const;

/**
 * The run's cost over every input: undefined when none carries one; the sum when each carried
 * one of its own meter. Refuses (naming load.cost) when only some inputs carry a cost, when
 * they priced different deployments, or when two read the same emulator endpoint's meter over
 * overlapping times (each of their costs holds the other's traffic: a sum counts it twice).
 */
export function mergeRunCost(inputs: readonly Input[]): { cost?: RunCost; omitted?: string } {
  const costs = inputs.flatMap(({ result, source }) => (result.load?.cost ? [{ cost: result.load.cost, source, result }] : []));
  const first = costs[0];
  if (!first) return {};
  if (costs.length < inputs.length) {
    const without = inputs.filter((x) => x.result.load?.cost === undefined);
    // A shard whose process died (rebuilt from its journal) never read its meter: the merged run is
    // partial anyway, and its incomplete note says the cost could not be summed.
    if (without.every((x) => x.result.incomplete !== undefined)) {
      return { omitted: `load.cost not merged: ${without.map((x) => x.source).join(', ')} ended before reading the billing meter, and a sum over the other shards is not the run's cost` };
    }
    refuse('load.cost', `${costs.length} of ${inputs.length} inputs carry a cost (an emulator's billing meter) and ${without.map((x) => x.source).join(', ')} do${without.length === 1 ? 'es' : ''} not; a sum over some shards is not the run's cost`);
  }
  for (const c of costs.slice(1)) {
    for (const k of SAME) {
      if (c.cost[k] !== first.cost[k]) refuse('load.cost', `${c.source} priced ${k} ${String(c.cost[k])} and ${first.source} ${String(first.cost[k])}: the costs of different deployments do not add up to one`);
    }
  }
  const window = (x: (typeof costs)[number]) => ({ meter: `${x.result.meta.target.queueUrl} ${x.cost.endpointId}`, from: Date.parse(x.result.meta.startedAt), to: Date.parse(x.result.meta.endedAt) });
  for (let i = 0; i < costs.length; i++) {
    for (let j = i + 1; j < costs.length; j++) {
      const a = window(costs[i]!);
      const b = window(costs[j]!);
      if (a.meter === b.meter && a.from < b.to && b.from < a.to) {
        refuse('load.cost', `${costs[i]!.source} and ${costs[j]!.source} read the billing meter of the same endpoint (${a.meter}) over overlapping times, so each cost includes the other's traffic; run each shard against its own emulator to merge their costs`);
      }
    }
  }
  const sum = Object.fromEntries(SUMMED.map((k) => [k, costs.reduce((acc, c) => acc + c.cost[k], 0)])) as Record<(typeof SUMMED)[number], number>;
  const costUsd = costs.some((c) => c.cost.costUsd === null) ? null : costs.reduce((acc, c) => acc + (c.cost.costUsd ?? 0), 0);
  return {
    cost: {
      endpointId: first.cost.endpointId,
      gpuTypeId: first.cost.gpuTypeId,
      gpuCount: first.cost.gpuCount,
      ...sum,
      costUsd,
      costPer1000JobsUsd: costUsd === null || sum.jobs === 0 ? null : (costUsd / sum.jobs) * 1_000,
      costPerMillionTokensUsd: costUsd === null || sum.tokens === 0 ? null : (costUsd / sum.tokens) * 1_000_000,
      priceSource: first.cost.priceSource,
    },
  };
}
