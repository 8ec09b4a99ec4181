// The whole of `qbench load` as a function (the CLI and the tests call it): load every
// scenario file against one target, run the scenarios one after another, and return a
// QbenchResult in the shared report model with its overall verdict and exit code. Each
// scenario starts only after a preflight request got an HTTP answer (src/load/preflight.ts).
import { hostname } from 'node:os';
import type { LoadScenarioResult, QbenchResult } from '../result/model.js';
import { SCHEMA_VERSION } from '../result/model.js';
import { buildMeta } from '../result/machine.js';
import { computeOverall } from '../result/overall.js';
import type { LoadTarget } from './context.js';
import { runScenario, type ProgressSnapshot } from './engine.js';
import { isQbenchError, scenarioError } from '../errors.js';
import { preflight } from './preflight.js';
import { loadScenarioFile, type LoadedScenario, type ScenarioOverrides } from './loader.js';
import type { ProcessShard } from './sharding.js';
import type { LoadObserver } from './observer.js';
import { readEndpointCounters } from '../target/index.js';
import { runCost } from './run-cost.js';

export interface RunLoadOptions {
  /** Scenario files; an entry may carry its own params and thresholds (from the config file). */
  readonly files: readonly (string | ScenarioEntry)[];
  readonly target: LoadTarget;
  readonly overrides?: ScenarioOverrides;
  /** Free parameters handed to scenario factories (`--param key=value`). */
  readonly params?: Readonly<Record<string, string>>;
  /** Only the scenarios with these names (all when empty). */
  readonly only?: readonly string[];
  readonly signal?: AbortSignal;
  readonly command?: readonly string[];
  readonly onProgress?: (p: ProgressSnapshot) => void;
  readonly log?: (line: string) => void;
  /** Called after each scenario (the CLI prints a one-line verdict). */
  readonly onScenarioDone?: (r: LoadScenarioResult) => void;
  /** Run one shard of every scenario's global schedule. */
  readonly shard?: ProcessShard | undefined;
  /** The shared start instant (epoch ms) of every scenario's schedule. */
  readonly startAtMs?: number | undefined;
  /** --strict: an inconclusive scenario fails the run. */
  readonly strict?: boolean | undefined;
  /** Watches the run as it goes (the journal, live metrics). */
  readonly observer?: LoadObserver | undefined;
}

/** A shard runs a share of a schedule: refuse what cannot be split, before any traffic. */
export function checkShardable(loaded: readonly LoadedScenario[], shard: ProcessShard): void {
  for (const { scenario: s } of loaded) {
    const why =
      s.globalView !== undefined
        ? s.globalView
        : s.executor === 'max-throughput'
          ? 'max-throughput has no schedule to split (run it without --shard in each process and qbench merge the results)'
          : undefined;
    if (why !== undefined) throw scenarioError(`scenario ${s.name} cannot run as shard ${shard.index}/${shard.count}: ${why}`);
  }
}

/** A scenario file with its own params (over the run's) and thresholds (in place of the file's). */
export interface ScenarioEntry {
  readonly file: string;
  readonly params?: Readonly<Record<string, string>> | undefined;
  readonly thresholds?: Readonly<Record<string, readonly string[]>> | undefined;
}

/**
 * A parameter no scenario takes is a mistake (a typo would otherwise be ignored): an entry's
 * own params must be taken by its file; the run's `--param`s by at least one file (they go to
 * every file). A plain factory takes any.
 */
function checkParamsTaken(entry: ScenarioEntry, loaded: readonly LoadedScenario[]): void {
  const declared = loaded[0]?.declaredParams;
  if (declared === undefined) return;
  const unknown = Object.keys(entry.params ?? {}).filter((k) => !declared.includes(k));
  if (unknown.length > 0) throw scenarioError(`${entry.file}: no parameter ${unknown.join(', ')}; it takes ${declared.length > 0 ? declared.join(', ') : 'none'}`);
}

function checkRunParamsTaken(params: Readonly<Record<string, string>>, loaded: readonly LoadedScenario[]): void {
  if (loaded.some((l) => l.declaredParams === undefined)) return;
  const taken = new Set(loaded.flatMap((l) => l.declaredParams ?? []));
  const unknown = Object.keys(params).filter((k) => !taken.has(k));
  if (unknown.length > 0) throw scenarioError(`--param ${unknown.join(', ')}: no scenario loaded takes it; they take ${taken.size > 0 ? [...taken].join(', ') : 'none'}`);
}

/** Load and validate every scenario first: a bad file fails before any traffic is sent. */
export async function loadAll(files: readonly (string | ScenarioEntry)[], target: LoadTarget, overrides: ScenarioOverrides, params: Readonly<Record<string, string>>, only: readonly string[] = []): Promise<LoadedScenario[]> {
  const all: LoadedScenario[] = [];
  for (const f of files) {
    const e: ScenarioEntry = typeof f === 'string' ? { file: f } : f;
    const set = e.thresholds === undefined ? overrides.set : [['thresholds', e.thresholds] as const, ...(overrides.set ?? [])];
    const loaded = await loadScenarioFile(e.file, { target, params: { ...params, ...e.params } }, { ...overrides, ...(set ? { set } : {}) });
    checkParamsTaken(e, loaded);
    all.push(...loaded);
  }
  checkRunParamsTaken(params, all);
  return only.length === 0 ? all : all.filter((l) => only.includes(l.scenario.name));
}

export async function runLoad(o: RunLoadOptions): Promise<QbenchResult> {
  const startedAt = new Date();
  const log = o.log ?? (() => undefined);
  const loaded = await loadAll(o.files, o.target, o.overrides ?? {}, o.params ?? {}, o.only);
  for (const l of loaded) for (const n of l.notes) log(`note: ${n}`);
  if (o.shard) checkShardable(loaded, o.shard);
  if (o.startAtMs !== undefined && loaded.length > 1) throw scenarioError(`--start-at is one instant: run one scenario per command (${loaded.length} were loaded; pick one with --only)`);
  o.observer?.planned?.(loaded.map((l) => l.scenario.name));
  const scenarios: LoadScenarioResult[] = [];
  // On an emulator, its billing meter before and after gives the run's cost (load.cost).
  const meterBefore = o.target.info === undefined ? undefined : await readEndpointCounters(o.target.queueUrl, o.target.endpointId, o.target.apiKey);
  let internal: string[] = [];
  let unreachable: string | undefined;
  for (const l of loaded) {
    if (o.signal?.aborted) break;
    try {
      await preflight(o.target, o.signal);
    } catch (e) {
      // Nothing answered: before the first scenario nothing has run and the run ends here
      // (exit 5); later, the scenarios already run are kept and the rest are not started.
      if (scenarios.length === 0 || !isQbenchError(e, 'QB_ERR_UNREACHABLE')) throw e;
      unreachable = e.message.replace(/^target unreachable: /, '');
      log(`${l.scenario.name}: not run: ${e.message}`);
      break;
    }
    try {
      const r = await runScenario(l.scenario, { target: o.target, signal: o.signal, onProgress: o.onProgress, log, source: l.source, shard: o.shard, startAtMs: o.startAtMs, observer: o.observer });
      scenarios.push(r);
      o.observer?.scenarioDone?.(r);
      o.onScenarioDone?.(r);
    } catch (e) {
      // A scenario error (bad thresholds) is the user's: let it reach the CLI as exit 2.
      if (e instanceof Error && 'code' in e && String((e as { code: unknown }).code).startsWith('QB_ERR_SCENARIO')) throw e;
      internal = [...internal, `${l.scenario.name}: ${e instanceof Error ? e.message : String(e)}`];
    }
  }
  const endedAt = new Date();
  const meterAfter = meterBefore === undefined ? undefined : await readEndpointCounters(o.target.queueUrl, o.target.endpointId, o.target.apiKey);
  const cost = meterBefore && meterAfter ? runCost(o.target.endpointId, meterBefore, meterAfter) : undefined;
  const meta = buildMeta({
    command: o.command ?? ['qbench', 'load', ...o.files.map((f) => (typeof f === 'string' ? f : f.file))],
    startedAt,
    endedAt,
    target: { kind: o.target.kind, queueUrl: o.target.queueUrl, endpointId: o.target.endpointId, timeScale: o.target.timeScale },
    labels: { host: hostname(), ...(o.shard ? { shard: `${o.shard.index}/${o.shard.count}` } : {}) },
  });
  const partial = { schemaVersion: SCHEMA_VERSION, kind: 'qbench-result' as const, meta, load: { scenarios, ...(cost ? { cost } : {}) } };
  const overall = computeOverall(partial, { interrupted: o.signal?.aborted ?? false, internalErrors: internal, strict: o.strict === true, ...(unreachable !== undefined ? { unreachable } : {}) });
  return { ...partial, overall };
}
