// The fuzz run as the shared result model (src/result/model.ts: meta, fuzz, overall) and the
// plain-words rendering of a finding: shrunk case, expected vs observed, curl line, and the
// command line that replays it (seed, property, path).
import { SCHEMA_VERSION, type FuzzProperty, type QbenchResult } from '../result/model.js';
import { buildMeta } from '../result/machine.js';
import { computeOverall } from '../result/overall.js';
import { redactSecrets } from '../errors.js';
import { replayPathOf, type FuzzRunResult, type OracleTally } from './runner.js';
import type { FuzzTarget } from './target.js';

export interface FuzzResultInput {
  readonly run: FuzzRunResult;
  readonly target: FuzzTarget;
  readonly startedAt: Date;
  readonly endedAt: Date;
  readonly command: readonly string[];
  readonly interrupted?: boolean;
}

export function fuzzResult(i: FuzzResultInput): QbenchResult {
  const t = i.target;
  const meta = buildMeta({
    command: i.command,
    startedAt: i.startedAt,
    endedAt: i.endedAt,
    target: {
      kind: t.kind,
      queueUrl: t.queueUrl,
      endpointId: t.endpointId,
      ...(t.restUrl !== undefined ? { restUrl: t.restUrl } : {}),
      ...(t.graphqlUrl !== undefined ? { graphqlUrl: t.graphqlUrl } : {}),
      timeScale: t.timeScale,
      ...(t.faults && t.faults.length > 0 ? { faults: [...t.faults] } : {}),
    },
  });
  const partial = { schemaVersion: SCHEMA_VERSION, kind: 'qbench-result' as const, meta, fuzz: i.run.section };
  return { ...partial, overall: computeOverall(partial, { interrupted: i.interrupted ?? false }) };
}

/** The `qbench fuzz` line that replays one failing property. */
export function replayCommand(p: FuzzProperty, targetArg: string, extraArgs: readonly string[] = []): string | undefined {
  if (!p.finding) return undefined;
  const parts = ['qbench fuzz', `--target ${targetArg}`, ...extraArgs, `--property ${p.name}`, `--seed ${p.finding.seed}`];
  if (p.finding.path !== '') parts.push(`--path ${p.finding.path}`);
  const replayPath = replayPathOf(p.finding.counterexample);
  if (replayPath !== undefined) parts.push(`--replay-path '${replayPath}'`);
  return parts.join(' ');
}

/** One property as console text; a failure spelled out in full. */
export function describeProperty(p: FuzzProperty, replay?: string, tally?: OracleTally): string {
  const classes = tally ? ` (cases sent: ${tally.accept} must-accept, ${tally.refuse} must-refuse, ${tally.ambiguous} ambiguous)` : '';
  const head = `${p.status.toUpperCase().padEnd(5)} ${p.name} (${p.clause.section}, ${p.kind}): ${p.runs} runs in ${(p.durationMs / 1000).toFixed(1)} s${classes}`;
  if (p.status === 'error') return `${head}\n      error: ${p.error ?? 'unknown'}\n`;
  if (!p.finding) return `${head}\n`;
  const f = p.finding;
  const lines = [
    head,
    redactSecrets(`      shrunk case: ${f.counterexample}`),
    redactSecrets(`      expected:    ${f.expected}`),
    redactSecrets(`      observed:    ${f.observed}`),
    // Built with the key as the --api-key-env variable and scrubbed of the key itself at the source
    // (redacting it again would hide the variable reference the line needs).
    ...(f.curl !== undefined ? [`      curl:        ${f.curl}`] : []),
    ...(replay !== undefined ? [`      replay:      ${replay}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}
