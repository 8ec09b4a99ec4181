// Reading the JSON answers and the emulator's info document without trusting their shape: a
// value is looked up along a path and narrowed by the caller (typeof), so a target that answers
// something else yields undefined, never a wrong type.
import { JOB_STATES, isTerminal } from 'qbench/suite';

/** The value at `path` in a parsed JSON document; undefined where a step is missing or not an object. */
export function valueAt(doc: unknown, ...path: readonly string[]): unknown {
  let cur: unknown = doc;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = Reflect.get(cur, key);
  }
  return cur;
}

/** Whether `status` names a terminal job state (§3.1); anything else, a non-state included, is not. */
export function isTerminalStatus(status: unknown): boolean {
  const state = JOB_STATES.find((s) => s === status);
  return state !== undefined && isTerminal(state);
}
