// Merging with a shard whose process died: its result was rebuilt from its journal (marked
// incomplete). It still contributes every second it recorded, and the merge names it partial:
// the merged scenario carries no verdict of its own and the run is incomplete, not failed.
import { EXIT } from '../exit-codes.js';
import type { LoadScenarioResult, OverallVerdict, QbenchResult, RunIncomplete } from '../result/model.js';

/** A merged scenario one of whose parts did not finish: data kept, thresholds and verdict not judged. */
export function partialMergedScenario(merged: LoadScenarioResult, parts: ReadonlyArray<{ s: LoadScenarioResult; label: string }>): LoadScenarioResult {
  const partial = parts.filter((p) => p.s.incomplete !== undefined);
  if (partial.length === 0) return merged;
  const note = `incomplete: ${partial.map((p) => `${p.label} is partial (${p.s.incomplete?.note.replace(/^incomplete: /, '') ?? ''})`).join('; ')}; no verdict (thresholds not judged on the merged whole)`;
  return {
    ...merged,
    thresholds: [],
    verdict: { status: 'info', summary: `${merged.shards ?? parts.length} shards merged, ${partial.length} partial: ${note}`, findings: merged.verdict.findings },
    incomplete: { recordedMs: Math.min(...partial.map((p) => p.s.incomplete?.recordedMs ?? 0)), note },
  };
}

/** The merged run's incompleteness and verdict when inputs were partial (undefined when none was). */
export function partialMergedRun(
  inputs: ReadonlyArray<{ result: QbenchResult; source: string }>,
  labels: readonly string[],
  overall: OverallVerdict,
): { incomplete: RunIncomplete; overall: OverallVerdict } | undefined {
  const partial = inputs.flatMap((x, i) => (x.result.incomplete ? [{ inc: x.result.incomplete, name: `${labels[i] ?? x.source} (${x.source})` }] : []));
  const first = partial[0];
  if (!first) return undefined;
  const named = partial.map((p) => `${p.name} is partial: ${p.inc.note}`);
  const notRun = [...new Set(partial.flatMap((p) => p.inc.notRun))];
  const incomplete: RunIncomplete = {
    note: named.join('; '),
    processEndedAt: partial.map((p) => p.inc.processEndedAt).sort()[0] ?? first.inc.processEndedAt,
    unrecordedMs: Math.max(...partial.map((p) => p.inc.unrecordedMs)),
    partial: [...new Set(partial.flatMap((p) => p.inc.partial))],
    notRun,
    partialSources: partial.map((p) => p.name),
  };
  const reasons = [...named, ...(notRun.length > 0 ? [`not run by the partial shards: ${notRun.join(', ')}`] : []), ...overall.reasons.filter((r) => !r.startsWith('passed:'))];
  return { incomplete, overall: { ...overall, status: 'error', exitCode: EXIT.INTERRUPTED, reasons } };
}
