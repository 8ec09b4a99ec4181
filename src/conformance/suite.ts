// A suite: the normative clauses of the spec, written down once, and the checks that cite
// them. The runner, the coverage matrix and the self-test read only this shape.
import type { CheckDefinition } from './check.js';

/** One normative rule of SERVICE-SPEC.md (or a WIRE-COMPAT fact) a client could observe or not. */
export type ClauseDef =
  | { readonly id: string; readonly section: string; readonly quote: string; readonly observable: true }
  | {
      readonly id: string;
      readonly section: string;
      readonly quote: string;
      readonly observable: false;
      /** Why no check enforces it (not observable by a client, not specified, ...). */
      readonly reason: string;
    };

export interface Suite {
  readonly clauses: readonly ClauseDef[];
  readonly checks: readonly CheckDefinition[];
}

/** Problems in a suite's own wiring: duplicate ids, citations of unknown clauses. */
export function suiteProblems(suite: Suite): string[] {
  const problems: string[] = [];
  const clauseIds = new Set<string>();
  for (const c of suite.clauses) {
    if (clauseIds.has(c.id)) problems.push(`clause ${c.id} is listed twice`);
    clauseIds.add(c.id);
  }
  const checkIds = new Set<string>();
  for (const ch of suite.checks) {
    if (checkIds.has(ch.id)) problems.push(`check ${ch.id} is defined twice`);
    checkIds.add(ch.id);
    for (const cl of ch.clauses) if (!clauseIds.has(cl)) problems.push(`check ${ch.id} cites unknown clause ${cl}`);
  }
  return problems;
}

export function clauseById(suite: Suite): ReadonlyMap<string, ClauseDef> {
  return new Map(suite.clauses.map((c) => [c.id, c]));
}
