// The labels every live series carries: which run, scenario, shard and target it measures
// (the target as its redacted queue URL and endpoint id: never the key).
import { redactUrl } from '../result/machine.js';

export interface RunLabels {
  readonly runId: string;
  /** "i/n" of a sharded run, "0/1" otherwise. */
  readonly shard: string;
  readonly target: string;
}

export function runLabels(runId: string, shard: { index: number; count: number } | undefined, queueUrl: string, endpointId: string): RunLabels {
  return { runId, shard: shard ? `${shard.index}/${shard.count}` : '0/1', target: `${redactUrl(queueUrl).replace(/\/$/, '')}/v2/${endpointId}` };
}
