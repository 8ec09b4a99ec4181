// The package's public API as a list: the root entry's values and types, the light
// `qbench/config` entry and the authoring API `qbench/suite`. Adding or dropping a name fails here, so that a change to what users can
// import is made on purpose (and written into the README's list).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';
import * as lightConfig from '../../src/config/define.js';
import * as suiteApi from '../../src/suite/index.js';

const VALUES = [
  'CheckFailure', 'CheckSkip', 'ClientError', 'DEFAULT_BACKOFF', 'EXIT', 'GraphqlError', 'HttpStatusError', 'InvalidRequestError',
  'NetworkError', 'PodClient', 'QbenchError', 'QueueClient', 'RateLimitedError', 'RequestAbortedError', 'RequestTimeoutError',
  'SCHEMA_VERSION', 'SchemaMismatchError', 'TemplateClient', 'VERSION', 'defineConfig', 'emulatorUrls', 'failCheck', 'formatShellEnv',
  'isQbenchError', 'parseResult', 'readResult', 'runWorker', 'skipCheck', 'startEmulator', 'urlsFromEnv', 'workerEnv',
];

const TYPES = [
  'AttemptRecord', 'BackoffOptions', 'CheckContext', 'CheckDefinition', 'CheckPass', 'CheckResult', 'CheckTag', 'ConformanceSection',
  'CustomStepFn', 'EmulatorConfigInput', 'EmulatorHandle', 'EmulatorHandler', 'EmulatorHandlerContext', 'EmulatorHandlerOutcome',
  'EmulatorStartOptions', 'ErrorCode', 'ExitCode', 'FuzzSection', 'IterationContext', 'LoadAnalysis', 'LoadRunContext',
  'LoadScenarioInput', 'LoadScenarioResult', 'LoadSection', 'LoadTarget', 'OverallVerdict', 'PodClientOptions', 'QbenchComparison',
  'QbenchConfigInput', 'QbenchResult', 'QueueClientOptions', 'RequestOptions', 'ScenarioFactoryContext', 'ScenarioHooks',
  'ScenarioModuleExport', 'StreamEnd', 'TemplateClientOptions', 'ThresholdSpec', 'VerdictStatus', 'WorkerEnvOptions', 'WorkerHandler',
  'WorkerJob', 'WorkerJobContext', 'WorkerOptions', 'WorkerStats', 'WorkerUrls',
];

const SUITE_VALUES = [
  'API_VERSIONS', 'ASYNC_ID_PATTERN', 'CLEAN_WINDOW_FLOOR_REAL_MS', 'CancelAnswer', 'DEFAULT_REQUESTS_PER_WORKER', 'EXECUTION_TIMEOUT_MS',
  'GpuTypeRecord', 'HTTP_STATUS', 'HealthRecord', 'JOB_STATES', 'JobRecord', 'MINUTE_MS', 'NO_INSTANCES_MESSAGE', 'PodRecord',
  'PurgeAnswer', 'RATE_LIMITS', 'RATE_WINDOW_MS', 'RETENTION_MS', 'RUNSYNC_PAYLOAD', 'RUNSYNC_WAIT_MS', 'RUN_PAYLOAD', 'RetryAnswer',
  'RunAnswer', 'SECOND_MS', 'STREAM_CHUNK', 'SYNC_ID_PATTERN', 'StreamAnswer', 'TEMPLATE_DEFAULTS', 'TTL_MS', 'TemplateRecord',
  'WEBHOOK', 'defineScenario', 'effectiveRateLimit', 'fail', 'inconclusive', 'isTerminal', 'notTheTargetsAnswer', 'paddedBodyRecipe',
  'param', 'paramError', 'runPool', 'skip', 'sleepUntilAborted',
];

const SUITE_TYPES = [
  'Analysis', 'ByteSize', 'CheckContext', 'CheckDefinition', 'CheckInterface', 'CheckKind', 'CheckPass', 'CheckTag', 'ClauseDef',
  'CustomStepFn', 'Evidence', 'Finding', 'HttpAnswer', 'IterationContext', 'JobState', 'LoadTarget', 'NumberParam', 'ParamSchema',
  'ParamShape', 'ParamsOf', 'ProbeRequest', 'ProbeResponse', 'RateLimitedOperation', 'RequestSpec', 'RunContext', 'ScenarioContext',
  'ScenarioDefinition', 'ScenarioHooks', 'ScenarioInput', 'Scenarios', 'Suite', 'ThresholdSpec',
];

interface ExportedNames {
  readonly values: string[];
  readonly types: string[];
  /** Statements that are not `export { ... } from` / `export type { ... } from` re-exports. */
  readonly other: string[];
}

/** The names an entry file re-exports, read from its syntax (types have no runtime trace to list). */
function exportedNames(file: string): ExportedNames {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2023, true);
  const values: string[] = [];
  const types: string[] = [];
  const other: string[] = [];
  for (const statement of source.statements) {
    const clause = ts.isExportDeclaration(statement) ? statement.exportClause : undefined;
    if (!ts.isExportDeclaration(statement) || !clause || !ts.isNamedExports(clause)) {
      if (!ts.isImportDeclaration(statement) || !statement.importClause?.isTypeOnly) other.push(statement.getText(source));
      continue;
    }
    for (const e of clause.elements) (statement.isTypeOnly || e.isTypeOnly ? types : values).push(e.name.text);
  }
  return { values: values.sort(), types: types.sort(), other };
}

/** What the TypeScript compiler emits for a file as the ES module the package ships. */
function emitted(file: string): string {
  return ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2023, verbatimModuleSyntax: true },
  }).outputText;
}

/** An entry's listed names: re-exported by its syntax (no `export *`), present at run time, each once. */
function listsExactly(file: string, mod: Record<string, unknown>, values: readonly string[], types: readonly string[]): void {
  it('re-exports exactly the listed values and types, nothing else and no export *', () => {
    const names = exportedNames(file);
    expect(names.other).toEqual([]);
    expect(names.values).toEqual(values);
    expect(names.types).toEqual(types);
  });

  it('has at run time the listed values, each defined', () => {
    expect(Object.keys(mod).sort()).toEqual(values);
    for (const name of values) expect(mod[name], name).toBeDefined();
  });

  it('names each export once (no name is both a value and a type export)', () => {
    const all = [...values, ...types];
    expect(new Set(all).size).toBe(all.length);
  });
}

describe('the package root (src/index.ts)', () => {
  listsExactly('src/index.ts', api, VALUES, TYPES);
});

describe('the light entry qbench/config (src/config/define.ts)', () => {
  it('is the package.json subpath ./config, next to the root', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, string> };
    expect(pkg.exports).toEqual({ '.': './dist/src/index.js', './config': './dist/src/config/define.js', './suite': './dist/src/suite/index.js' });
  });

  it('exports defineConfig (the root re-exports the same function) and its input type', () => {
    expect(exportedNames('src/config/define.ts').types).toEqual(['QbenchConfigInput']);
    expect(Object.keys(lightConfig)).toEqual(['defineConfig']);
    expect(api.defineConfig).toBe(lightConfig.defineConfig);
    const config = { targets: { local: { url: 'emulator' as const } } };
    expect(lightConfig.defineConfig(config)).toBe(config);
  });

  it('loads no other module: its compiled JavaScript imports nothing', () => {
    const js = emitted('src/config/define.ts');
    expect(js).toMatch(/export function defineConfig/);
    expect(ts.preProcessFile(js, true, true).importedFiles.map((f) => f.fileName)).toEqual([]);
    // No import or require of any form is left (type imports are erased).
    expect(js).not.toMatch(/\bimport\b|\brequire\(/);
  });
});

describe('the authoring API qbench/suite (src/suite/index.ts)', () => {
  listsExactly('src/suite/index.ts', suiteApi, SUITE_VALUES, SUITE_TYPES);

  it('is all the shipped suites import of qbench, and the engine imports no suite', () => {
    const imports = (file: string) => [...readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport\(?)\s*'([^']+)'/g)].map((m) => m[1] ?? '');
    const tsFiles = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));
    const suiteFiles = tsFiles('suites');
    expect(suiteFiles.length).toBeGreaterThan(20);
    for (const file of suiteFiles) {
      for (const spec of imports(file)) {
        const inside = spec.startsWith('.') && path.resolve(path.dirname(file), spec).startsWith(path.resolve('suites') + path.sep);
        expect(inside || spec === 'qbench/suite' || spec === 'zod' || spec.startsWith('node:'), `${file} imports ${spec}`).toBe(true);
      }
    }
    for (const file of tsFiles('src')) {
      for (const spec of imports(file)) {
        const target = spec.startsWith('.') ? path.resolve(path.dirname(file), spec) : '';
        expect(target.startsWith(path.resolve('suites') + path.sep), `${file} imports ${spec}`).toBe(false);
      }
    }
  });
});
