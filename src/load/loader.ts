// Scenario files (suites/load/*.ts and users' own): a module whose default export is a
// scenario, a list of them, a factory of either given the target (so that a scenario can aim
// past the limits the emulator advertises), or a `defineScenario` with its parameters'
// schema. Overrides from the command line are applied to the raw object before validation,
// so every field is overridable and checked alike.
import { isQbenchError, scenarioError } from '../errors.js';
import { importUserModule, resolveUserFile } from '../user-module.js';
import type { LoadTarget } from './context.js';
import { parseScenario, type Scenario, type ScenarioInput } from './scenario.js';
import { isScenarioDefinition, type ScenarioDefinition } from './scenario-definition.js';

export interface ScenarioFactoryContext {
  readonly target: LoadTarget;
  /** Free `--param key=value` pairs (e.g. which operation a rate-limit scenario probes). */
  readonly params: Readonly<Record<string, string>>;
}
export type ScenarioModuleExport =
  | ScenarioDefinition
  | ScenarioInput
  | readonly ScenarioInput[]
  | ((ctx: ScenarioFactoryContext) => ScenarioInput | readonly ScenarioInput[] | Promise<ScenarioInput | readonly ScenarioInput[]>);

/** Where a scenario came from: enough for a worker thread to load the same one. */
export interface ScenarioSource {
  readonly file: string;
  readonly params: Readonly<Record<string, string>>;
  /** Position in the module's list. */
  readonly index: number;
  readonly overrides: ScenarioOverrides;
}

/** Command-line overrides: shorthands and dotted-path assignments (`--set a.b=JSON`). */
export interface ScenarioOverrides {
  readonly durationMs?: number;
  readonly ratePerSec?: number;
  readonly vus?: number;
  readonly threads?: number;
  readonly maxRequests?: number;
  readonly set?: readonly (readonly [path: string, value: unknown])[];
}

export interface LoadedScenario {
  readonly scenario: Scenario;
  readonly source: ScenarioSource;
  /** Overrides that did not apply to this scenario's executor (for a note to the user). */
  readonly notes: readonly string[];
  /** The `--param`s its file takes; undefined: any (a plain factory reads what it likes). */
  readonly declaredParams: readonly string[] | undefined;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur: Record<string, unknown> = obj;
  for (let i = 0; i < parts.length - 1; i++) {
    const key = parts[i] ?? '';
    const nextVal = cur[key];
    if (typeof nextVal !== 'object' || nextVal === null) cur[key] = /^\d+$/.test(parts[i + 1] ?? '') ? [] : {};
    cur = cur[key] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1] ?? ''] = value;
}

/** Apply overrides to a raw scenario object (a copy; functions kept by reference). */
export function applyOverrides(raw: ScenarioInput, o: ScenarioOverrides): { input: Record<string, unknown>; notes: string[] } {
  const input: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const notes: string[] = [];
  const executor = input['executor'];
  const name = String(input['name']);
  if (o.durationMs !== undefined) {
    if (executor === 'ramping-arrival-rate' && Array.isArray(input['stages'])) {
      // Stretch or shrink the stages so the profile keeps its shape.
      const stages = input['stages'] as { durationMs: number; targetRatePerSec: number }[];
      const total = stages.reduce((a, s) => a + s.durationMs, 0);
      input['stages'] = stages.map((s) => ({ ...s, durationMs: Math.max(1, Math.round((s.durationMs / total) * o.durationMs!)) }));
    } else if (executor === 'iterations') input['maxDurationMs'] = o.durationMs;
    else input['durationMs'] = o.durationMs;
  }
  if (o.ratePerSec !== undefined) {
    if (executor === 'constant-arrival-rate') input['ratePerSec'] = o.ratePerSec;
    else if (executor === 'ramping-arrival-rate' && Array.isArray(input['stages'])) {
      const stages = input['stages'] as { durationMs: number; targetRatePerSec: number }[];
      const peak = Math.max(Number(input['startRatePerSec'] ?? 0), ...stages.map((s) => s.targetRatePerSec));
      const f = peak > 0 ? o.ratePerSec / peak : 0;
      input['stages'] = stages.map((s) => ({ ...s, targetRatePerSec: s.targetRatePerSec * f }));
      if (input['startRatePerSec'] !== undefined) input['startRatePerSec'] = Number(input['startRatePerSec']) * f;
    } else notes.push(`--rate does not apply to ${name} (${String(executor)})`);
  }
  if (o.vus !== undefined) {
    if (executor === 'constant-concurrency' || executor === 'iterations') input['vus'] = o.vus;
    else if (executor === 'max-throughput') input['connections'] = o.vus;
    else notes.push(`--vus does not apply to ${name} (${String(executor)})`);
  }
  // A description the scenario wrote from its own numbers says what the flags changed.
  const asRun = [
    ...(o.ratePerSec !== undefined && (executor === 'constant-arrival-rate' || executor === 'ramping-arrival-rate') ? [`--rate ${o.ratePerSec}/s${executor === 'ramping-arrival-rate' ? ' at the peak' : ''}`] : []),
    ...(o.durationMs !== undefined ? [`--duration ${o.durationMs / 1000} s`] : []),
    ...(o.vus !== undefined && ['constant-concurrency', 'iterations', 'max-throughput'].includes(String(executor)) ? [`--vus ${o.vus}`] : []),
  ];
  if (typeof input['description'] === 'string' && asRun.length > 0) input['description'] = `${input['description']} (as run: ${asRun.join(', ')})`;
  if (o.threads !== undefined) input['threads'] = o.threads;
  if (o.maxRequests !== undefined) input['maxRequests'] = o.maxRequests;
  for (const [path, value] of o.set ?? []) {
    // Deep-copy the branch we write into so the module's object stays untouched.
    const top = path.split('.')[0] ?? '';
    if (typeof input[top] === 'object' && input[top] !== null) input[top] = structuredCloneKeepFns(input[top]);
    setPath(input, path, value);
  }
  return { input, notes };
}

function structuredCloneKeepFns(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(structuredCloneKeepFns);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, structuredCloneKeepFns(x)]));
  return v;
}

/** The `--param`s a module's default export takes: undefined when any (a plain factory). */
export function declaredParamsOf(exported: unknown): readonly string[] | undefined {
  if (isScenarioDefinition(exported)) return exported.params;
  return typeof exported === 'function' ? undefined : [];
}

/**
 * A factory's own error (a `paramError`, or any it throws) is a problem of the scenario file:
 * exit 2 with the file named, not an internal error with a stack.
 */
async function build(file: string, make: () => unknown): Promise<unknown> {
  try {
    return await make();
  } catch (e) {
    if (isQbenchError(e) && (e.code !== 'QB_ERR_SCENARIO' || e.details['file'] !== undefined)) throw e;
    throw scenarioError(`${file}: ${e instanceof Error ? e.message : String(e)}`, { file });
  }
}

/** Resolve a module's default export into raw scenario objects. */
export async function scenarioInputsOf(exported: unknown, ctx: ScenarioFactoryContext, file: string): Promise<ScenarioInput[]> {
  const value: unknown = isScenarioDefinition(exported)
    ? await build(file, () => exported.create(ctx.target, ctx.params, file))
    : typeof exported === 'function'
      ? await build(file, () => (exported as (c: ScenarioFactoryContext) => unknown)(ctx))
      : exported;
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (list.length === 0 || list.some((x) => typeof x !== 'object' || x === null)) {
    throw scenarioError(`${file}: the default export must be a scenario object, a list of them, or a function returning either`);
  }
  return list as ScenarioInput[];
}

export async function loadScenarioFile(file: string, ctx: ScenarioFactoryContext, overrides: ScenarioOverrides = {}): Promise<LoadedScenario[]> {
  const abs = resolveUserFile(file);
  let mod: { default?: unknown };
  try {
    mod = await importUserModule(abs);
  } catch (e) {
    throw scenarioError(`cannot load scenario file ${file}: ${e instanceof Error ? e.message : String(e)}`, { file });
  }
  if (mod.default === undefined) throw scenarioError(`${file}: no default export (export default a scenario, a list, or a factory)`);
  const inputs = await scenarioInputsOf(mod.default, ctx, file);
  const declaredParams = declaredParamsOf(mod.default);
  return inputs.map((raw, index) => {
    const { input, notes } = applyOverrides(raw, overrides);
    const scenario = parseScenario(input, `${file}${inputs.length > 1 ? ` [${index}]` : ''}`);
    return { scenario, source: { file: abs, params: ctx.params, index, overrides }, notes, declaredParams };
  });
}
