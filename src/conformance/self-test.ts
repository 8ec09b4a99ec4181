// `qbench check --self-test`: proof that the suite catches broken implementations.
// The clean emulator must pass every selected check; then, for each fault switch of
// src/emulator/faults.ts, an emulator with that one fault runs the checks that cite the
// fault's clause, and at least one of them must fail. The detection table lists them.
// The emulators are in-process by default; `startTarget` puts them anywhere reachable by URL
// (another process, behind a proxy), to prove the suite at the border as well.
import type { CheckResult } from '../result/model.js';
import { FAULTS, FAULT_NAMES, type FaultName } from '../emulator/faults.js';
import { startEmulatorTarget, type Connected } from './connect.js';
import { runPool } from './pool.js';
import { runChecks, type Profile } from './runner.js';
import { clauseById, type Suite } from './suite.js';

export interface SelfTestRow {
  readonly fault: FaultName;
  readonly clause: string;
  readonly description: string;
  /** Failing checks that cite a clause of the fault's section: the detection. */
  readonly caughtBy: readonly string[];
  /** Other checks that failed or broke under this fault (collateral). */
  readonly alsoFailed: readonly string[];
  /**
   * Checks that ended inconclusive under this fault. An inconclusive verdict says the evidence
   * allowed a correct target, so it never counts as catching the fault: a fault that draws only
   * these is missed.
   */
  readonly inconclusive: readonly string[];
  /** Checks run against this fault. */
  readonly ran: number;
  readonly durationMs: number;
  /** Missed while faults ran side by side, so run again alone (this row is that run). */
  readonly retriedAlone?: boolean;
}

export interface SelfTestReport {
  readonly clean: readonly CheckResult[];
  readonly cleanPassed: boolean;
  readonly rows: readonly SelfTestRow[];
  readonly allCaught: boolean;
  readonly durationMs: number;
}

export interface SelfTestOptions {
  readonly profile?: Profile;
  readonly faults?: readonly FaultName[];
  /** Fault emulators run side by side (default 3); rate-limit bursts stay serialized across them. */
  readonly parallel?: number;
  readonly timeScale?: number;
  /** Checks in flight within one run (default 6). */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  readonly skipClean?: boolean;
  readonly onClean?: (results: readonly CheckResult[]) => void;
  readonly onRow?: (row: SelfTestRow) => void;
  /**
   * Proof of detection in less time: a fault's checks whose first clause is in the fault's
   * section run first and the rest only if none of them caught it, and the run stops at the
   * first check that catches it (caughtBy then names that one; the checks still running are
   * stopped and not reported). Without it every check citing the section runs to its verdict,
   * for the full detection table.
   */
  readonly firstCatch?: boolean;
  /**
   * Start an emulator with these faults switched on and connect to it (default: in-process,
   * `timeScale`); `close` stops both.
   */
  readonly startTarget?: (faults: readonly FaultName[]) => Promise<Connected>;
}

/** Ids of the checks citing at least one clause of `section`. */
export function checksForSection(suite: Suite, section: string): string[] {
  const clauses = clauseById(suite);
  return suite.checks.filter((c) => c.clauses.some((id) => clauses.get(id)?.section === section)).map((c) => c.id);
}

function failed(r: CheckResult): boolean {
  return r.verdict.status === 'fail' || r.verdict.status === 'error';
}

/**
 * Start an emulator with `faults` and run each group of checks in turn on it; with `stopAt`, a
 * group stops at the first result it accepts (the results reported are those ended before it,
 * and it) and no later group runs.
 */
async function runAgainst(suite: Suite, faults: readonly FaultName[], groups: readonly (readonly string[] | undefined)[], o: SelfTestOptions, stopAt?: (r: CheckResult) => boolean): Promise<CheckResult[]> {
  const t = o.startTarget ? await o.startTarget(faults) : await startEmulatorTarget({ faults, ...(o.timeScale !== undefined ? { timeScale: o.timeScale } : {}) });
  try {
    const all: CheckResult[] = [];
    for (const only of groups) {
      const stop = new AbortController();
      const ended: CheckResult[] = [];
      const results = await runChecks(suite, t.target, t.probe, {
        profile: o.profile ?? 'quick',
        concurrency: o.concurrency ?? 6,
        ...(only ? { only } : {}),
        signal: o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal,
        onResult: (r) => {
          if (stop.signal.aborted) return;
          ended.push(r);
          if (stopAt?.(r)) stop.abort(new Error(`stopped at the first catch: ${r.id}`));
        },
      });
      if (!stop.signal.aborted) {
        all.push(...results);
        continue;
      }
      all.push(...ended);
      break;
    }
    return all;
  } finally {
    await t.close();
  }
}

export async function runSelfTest(suite: Suite, o: SelfTestOptions = {}): Promise<SelfTestReport> {
  const started = performance.now();
  const clauses = clauseById(suite);
  let clean: CheckResult[] = [];
  if (!o.skipClean) {
    clean = await runAgainst(suite, [], [undefined], o);
    o.onClean?.(clean);
  }
  const faults = o.faults ?? FAULT_NAMES;
  const detect = async (fault: FaultName): Promise<SelfTestRow> => {
    const t0 = performance.now();
    const info = FAULTS[fault];
    const only = checksForSection(suite, info.clause);
    const cites = (r: CheckResult) => (suite.checks.find((c) => c.id === r.id)?.clauses ?? []).some((id) => clauses.get(id)?.section === info.clause);
    const catches = (r: CheckResult) => r.kind === 'spec' && r.verdict.status === 'fail' && cites(r);
    let results: CheckResult[] = [];
    if (only.length > 0 && o.firstCatch) {
      const primary = new Set(suite.checks.filter((c) => only.includes(c.id) && clauses.get(c.clauses[0] ?? '')?.section === info.clause).map((c) => c.id));
      const groups = [[...primary], only.filter((id) => !primary.has(id))].filter((g) => g.length > 0);
      results = await runAgainst(suite, [fault], groups, o, catches);
    } else if (only.length > 0) {
      results = await runAgainst(suite, [fault], [only], o);
    }
    const row: SelfTestRow = {
      fault,
      clause: info.clause,
      description: info.description,
      caughtBy: results.filter(catches).map((r) => r.id),
      alsoFailed: results.filter((r) => failed(r) && !catches(r)).map((r) => r.id),
      inconclusive: results.filter((r) => r.verdict.status === 'inconclusive').map((r) => r.id),
      ran: results.filter((r) => r.verdict.status !== 'skip').length,
      durationMs: performance.now() - t0,
    };
    return row;
  };
  const first = await runPool(faults, o.parallel ?? 3, async (fault) => {
    const row = await detect(fault);
    if (row.caughtBy.length > 0) o.onRow?.(row);
    return row;
  });
  // A fault whose checks could not set up what they judge while other emulators shared the
  // host (inconclusive, not failed) gets one more try alone: detection is judged on evidence.
  const rows: SelfTestRow[] = [];
  for (const row of first) {
    if (row.caughtBy.length > 0) {
      rows.push(row);
      continue;
    }
    const again: SelfTestRow = { ...(await detect(row.fault)), retriedAlone: true };
    o.onRow?.(again);
    rows.push(again);
  }
  return {
    clean,
    cleanPassed: o.skipClean === true || clean.every((r) => !failed(r)),
    rows,
    allCaught: rows.every((r) => r.caughtBy.length > 0),
    durationMs: performance.now() - started,
  };
}

/** The detection table as markdown (docs and `--self-test` output). */
export function renderDetectionTable(rows: readonly SelfTestRow[]): string {
  const lines = ['| Fault | Clause | What it breaks | Caught by (failing checks citing the clause) |', '|---|---|---|---|'];
  for (const r of rows) {
    const missed = r.inconclusive.length > 0 ? `**NOT CAUGHT** (inconclusive only: ${r.inconclusive.map((id) => `\`${id}\``).join(', ')})` : '**NOT CAUGHT**';
    lines.push(`| \`${r.fault}\` | ${r.clause} | ${r.description} | ${r.caughtBy.length > 0 ? r.caughtBy.map((id) => `\`${id}\``).join(', ') : missed} |`);
  }
  return `${lines.join('\n')}\n`;
}
