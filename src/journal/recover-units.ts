// Rebuilding the conformance and fuzz sections from a journal: every finished check or property
// with its verdict and evidence as it was written; what the plan named and never finished did
// not run (a check in flight when the process died left nothing but its name).
import { conformanceSectionOf } from '../conformance/result.js';
import type { CheckResult, ConformanceSection, CoverageRow, FuzzProperty, FuzzSection } from '../result/model.js';
import type { JournalRecord, JournalSection } from './records.js';

export interface SectionRecovery<T> {
  readonly section: T;
  readonly notRun: string[];
}

function planOf(records: readonly JournalRecord[], section: JournalSection): string[] | undefined {
  const plans = records.flatMap((r) => (r.type === 'plan' && r.section === section ? r.units : []));
  return records.some((r) => r.type === 'plan' && r.section === section) ? plans : undefined;
}

function factsOf(records: readonly JournalRecord[], section: JournalSection): Record<string, unknown> {
  return Object.assign({}, ...records.flatMap((r) => (r.type === 'section' && r.section === section ? [r.facts] : []))) as Record<string, unknown>;
}

export function recoverConformance(records: readonly JournalRecord[]): SectionRecovery<ConformanceSection> | undefined {
  const plan = planOf(records, 'conformance');
  if (plan === undefined) return undefined;
  const checks = records.flatMap((r): CheckResult[] => (r.type === 'check' ? [r.result] : []));
  const facts = factsOf(records, 'conformance');
  const section = conformanceSectionOf((facts['coverage'] ?? []) as CoverageRow[], checks, typeof facts['profile'] === 'string' ? facts['profile'] : 'unknown');
  return { section, notRun: plan.filter((id) => !checks.some((c) => c.id === id)) };
}

export function recoverFuzz(records: readonly JournalRecord[], durationMs: number): SectionRecovery<FuzzSection> | undefined {
  const plan = planOf(records, 'fuzz');
  if (plan === undefined) return undefined;
  const properties = records.flatMap((r): FuzzProperty[] => (r.type === 'property' ? [r.result] : []));
  const facts = factsOf(records, 'fuzz');
  const num = (k: string): number => (typeof facts[k] === 'number' ? facts[k] : 0);
  return { section: { seed: num('seed'), numRuns: num('numRuns'), durationMs, properties }, notRun: plan.filter((n) => !properties.some((p) => p.name === n)) };
}
