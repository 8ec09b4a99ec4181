// The package's public API as a list: the root entry's values and types, and the light
// `qbench/config` entry. Adding or dropping a name fails here, so that a change to what users can
// import is made on purpose (and written into the README's list).
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';
import * as lightConfig from '../../src/config/define.js';

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

describe('the package root (src/index.ts)', () => {
  it('re-exports exactly the listed values and types, nothing else and no export *', () => {
    const names = exportedNames('src/index.ts');
    expect(names.other).toEqual([]);
    expect(names.values).toEqual(VALUES);
    expect(names.types).toEqual(TYPES);
  });

  it('has at run time the listed values, each defined', () => {
    expect(Object.keys(api).sort()).toEqual(VALUES);
    for (const name of VALUES) expect(api[name as keyof typeof api], name).toBeDefined();
  });

  it('names each export once (no name is both a value and a type export)', () => {
    const all = [...VALUES, ...TYPES];
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('the light entry qbench/config (src/config/define.ts)', () => {
  it('is the package.json subpath ./config, next to the root', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, string> };
    expect(pkg.exports).toEqual({ '.': './dist/src/index.js', './config': './dist/src/config/define.js' });
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
