// The package as a user meets it: packed once, installed from the tarball with no network into
// two projects made by `npm init -y` (one left CommonJS as npm writes it, one "type": "module"),
// and run with npx from there on Node 20 (no tsx of the user's own). In each: config, scenario
// and handler files of every extension, the user's own TypeScript scenario (in worker threads
// too), the installed-package lines of the docs, and `qbench init` followed by the commands it
// prints. What does not depend on the module system (every other command line of README.md and docs/, the workflow init
// writes, the shipped scenarios, the reference worker's serving and stop) runs once, in the
// project npm init -y leaves.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import { attached, client, KEY, until } from '../workers/helpers.js';
import { installedConsumers, type Consumer, type Consumers, type ProjectKind, type RunResult } from './consumer.js';

const SCENARIO_TS = `import type { LoadScenarioInput } from 'qbench';

const scenario: LoadScenarioInput = {
  name: 'my-health',
  executor: 'constant-arrival-rate',
  ratePerSec: 5,
  durationMs: 2000,
  steps: [{ kind: 'health' }],
};
export default scenario;
`;

const HANDLER_TS = `import type { WorkerHandler } from 'qbench';

const handler: WorkerHandler = (job) => Promise.resolve({ echo: job.input as Record<string, unknown>, from: 'handler.ts' });
export default handler;
`;

const EXTENSIONS = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'] as const;
type Extension = (typeof EXTENSIONS)[number];

/** Whether a file of this extension is CommonJS in a project of this kind (what its author writes). */
const writtenAsCommonJs = (kind: ProjectKind, ext: Extension) => ext === 'cjs' || (ext === 'js' && kind === 'commonjs');

/**
 * A config, a load scenario and a worker handler in `ext`, each importing a value as its author
 * would in that module system (TypeScript in ES module syntax, compiled to CommonJS where the
 * file is CommonJS; JavaScript in the syntax its type needs): the config from the light entry
 * qbench/config, the scenario and the handler from the package root. The handler answers whether
 * its qbench is the CLI's own instance (the harness puts that on globalThis): a second copy of
 * the package would not share its state (registered secrets).
 */
function filesOfType(kind: ProjectKind, ext: Extension): Record<string, string> {
  const config = "defineConfig({ targets: { local: { url: 'emulator' } }, conformance: { only: ['queue.run.answer'] } })";
  const scenario = `{ name: 'types-${ext}', executor: 'constant-arrival-rate', ratePerSec: 1, durationMs: 1000, steps: [{ kind: 'health' }] }`;
  const answer = "(job) => Promise.resolve({ echo: job.input, sameQbench: defineConfig === globalThis.qbenchOfCli.defineConfig })";
  if (writtenAsCommonJs(kind, ext)) {
    return {
      [`config.${ext}`]: `const { defineConfig } = require('qbench/config');\nmodule.exports = ${config};\n`,
      [`scenario.${ext}`]: `const { defineConfig } = require('qbench');\nif (typeof defineConfig !== 'function') throw new Error('no defineConfig');\nmodule.exports = ${scenario};\n`,
      // A named export, as `worker --handler` also accepts.
      [`handler.${ext}`]: `const { defineConfig } = require('qbench');\nmodule.exports = { handler: ${answer} };\n`,
    };
  }
  const ts = ext.endsWith('ts');
  return {
    [`config.${ext}`]: `import { defineConfig } from 'qbench/config';\n\nexport default ${config};\n`,
    [`scenario.${ext}`]: ts
      ? `import { defineConfig, type LoadScenarioInput } from 'qbench';\n\nif (typeof defineConfig !== 'function') throw new Error('no defineConfig');\nconst scenario: LoadScenarioInput = ${scenario};\nexport default scenario;\n`
      : `import { defineConfig } from 'qbench';\n\nif (typeof defineConfig !== 'function') throw new Error('no defineConfig');\nexport default ${scenario};\n`,
    [`handler.${ext}`]: ts
      ? `import { defineConfig, type WorkerHandler } from 'qbench';\n\n${ext === 'cts' ? 'export const handler' : 'const handler'}: WorkerHandler = ${answer.replace('(job)', '(job: { input: unknown })')};\n${ext === 'cts' ? '' : 'export default handler;\n'}`
      : `import { defineConfig } from 'qbench';\n\nexport default ${answer};\n`,
  };
}

/**
 * Loads every file of types/ through the installed CLI's own code, in one process whose main
 * module waits on top-level await as the bin does: each config by main() in parse-only mode
 * (--config, then --target local from it), each scenario by the loader, each handler as
 * `worker --handler` does, called once.
 */
const LOAD_EVERY_TYPE = `const { main } = await import('./node_modules/qbench/dist/src/cli/main.js');
const { loadScenarioFile } = await import('./node_modules/qbench/dist/src/load/loader.js');
const { importUserModule } = await import('./node_modules/qbench/dist/src/user-module.js');
const { resolve } = await import('node:path');
globalThis.qbenchOfCli = await import('qbench');
const results = {};
const problem = (e) => ({ problem: e instanceof Error ? e.message : String(e) });
for (const ext of process.argv.slice(2)) {
  let text = '';
  const io = { stdout: (t) => void (text += t), stderr: (t) => void (text += t), isTty: false, env: { QBENCH_PARSE_ONLY: '1' }, signal: new AbortController().signal };
  const code = await main(['check', '--config', 'types/config.' + ext, '--target', 'local'], io);
  const config = { code, text: text.trim() };
  const scenario = await loadScenarioFile('types/scenario.' + ext, { target: { url: 'http://127.0.0.1:1', endpoint: 'demo' }, params: {} }).then((l) => l.map((s) => s.scenario.name), problem);
  const handler = await importUserModule(resolve('types/handler.' + ext)).then((m) => {
    const fn = typeof m.default === 'function' ? m.default : m.handler;
    return typeof fn === 'function' ? fn({ id: 'job-1', input: { n: 1 } }) : { problem: 'no default or handler function' };
  }, problem);
  results[ext] = { config, scenario, handler };
}
let text = '';
const io = { stdout: (t) => void (text += t), stderr: (t) => void (text += t), isTty: false, env: { QBENCH_PARSE_ONLY: '1' }, signal: new AbortController().signal };
results.awaits = { code: await main(['check', '--config', 'types/awaits.ts', '--target', 'local'], io), text: text.trim() };
console.log(JSON.stringify(results));
`;

/** A .ts config with top-level await: an ES module only, so a CommonJS project's is refused with the way out. */
const AWAITS_TS = "import { defineConfig } from 'qbench/config';\n\nconst local = await Promise.resolve({ url: 'emulator' as const });\nexport default defineConfig({ targets: { local } });\n";

let consumers: Consumers | undefined;

// Each test below that starts the installed CLI (npx, a node process) gets 60 s: on the 2-core
// machine, with other test files running beside this one, one npx start alone can take 10 s.

beforeAll(async () => {
  consumers = await installedConsumers();
  for (const p of Object.values(consumers.projects)) {
    writeFileSync(join(p.dir, 'my-scenario.ts'), SCENARIO_TS);
    writeFileSync(join(p.dir, 'handler.ts'), HANDLER_TS);
  }
}, 150_000);

afterAll(() => consumers?.remove(), 60_000);

/**
 * A load run that passed, or whose only problem was the generator sending late (exit 4,
 * INVALID) on a busy shared machine: either way the scenario loaded and ran, which is what
 * these tests are about; a failed verdict (1) or a load error (2, 3) fails them.
 */
function expectRanOrLate(r: RunResult): void {
  expect([0, 4], r.stdout + r.stderr).toContain(r.code);
  if (r.code === 4) expect(r.stdout).toMatch(/measurement invalid: send lateness/);
}

/** A command line of README.md's sh/bash blocks, with the variable assignments the README makes before it. */
interface ReadmeCommand {
  readonly line: string;
  readonly prelude: readonly string[];
}

/** Every `qbench` / `npx qbench` command line of the README's shell blocks (continuation lines joined). */
function readmeCommands(readme: string): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  const prelude: string[] = [];
  for (const block of readme.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)) {
    for (const raw of (block[1] ?? '').replace(/\\\n\s*/g, ' ').split('\n')) {
      const line = raw.trim();
      const runsQbench = /(^|[\s;&|(])(npx\s+)?qbench\s/.test(line) && !/npm run qbench/.test(line);
      if (runsQbench) commands.push({ line, prelude: [...prelude] });
      else if (/^(export\s+)?[A-Z_][A-Z0-9_]*=/.test(line)) prelude.push(line);
    }
  }
  return commands;
}

/** What stands in for the README's placeholders; optional groups are given, repeated ones (`...`) left out. */
function asWritten(line: string): string {
  return line
    .replace(/\[[^\]]*\.\.\.[^\]]*\]/g, '')
    .replace(/\[([^\]]*)\]/g, '$1')
    .replaceAll('<endpoint_id>', 'ep-1')
    .replaceAll('<idle endpoint>', 'ep-idle')
    .replaceAll('<public-ip>', '127.0.0.1')
    // The manifests are printed; there is no cluster to apply them to here.
    .replace(/\s*\|\s*kubectl [^#]*/, ' ')
    // A server started in the background runs in the foreground (its exit status counts).
    .replace(/(?<!&)&\s*(#.*)?$/, '')
    // The same, with the exit status of the printing command kept (`eval "$(...)"` drops it).
    .replace(/^eval "\$\((.*?)\)"/, 'printed="$($1)"; eval "$printed"');
}

/**
 * The README lines that run here as written (emulator targets, files the README or this test
 * made, quick to finish), with their documented exit; every other line needs a deployment, a
 * long-running server or minutes, and is parsed only (QBENCH_PARSE_ONLY=1: flags, config and
 * target grammar, then exit 0 with nothing run).
 */
const RUN_AS_WRITTEN: readonly { readonly match: RegExp; readonly exit: 'ok' | 'ranOrLate'; readonly after?: (dir: string) => void }[] = [
  // Its result stands for the README's result.json (the report lines below read it).
  { match: /^npx qbench check --target emulator --only queue\.run\.answer$/, exit: 'ok', after: (dir) => copyFileSync(join(dir, 'reports/latest/result.json'), join(dir, 'result.json')) },
  { match: /^npx qbench load my-scenario\.ts --target emulator\s+#/, exit: 'ranOrLate' },
  { match: /^qbench report (reports\/latest\/)?result\.json/, exit: 'ok' },
  { match: /^npx qbench check --list\b/, exit: 'ok' },
  { match: /^qbench kube render /, exit: 'ok' },
  { match: /^eval "\$\(qbench emulate --print-worker-env [^)]*\)"$/, exit: 'ok' },
];

/**
 * Shell functions that stand in for `qbench` and `npx qbench` in a parsed-only line: bash splits
 * the words, expands the variables and runs the line's own logic (eval, &&), and each qbench
 * command line lands, NUL-separated after a marker, in $QBENCH_ARGV_FILE.
 */
const ARGV_MARK = '<<qbench>>';
const RECORD_QBENCH = `qbench() { printf '%s\\0' '${ARGV_MARK}' "$@" >> "$QBENCH_ARGV_FILE"; }
npx() { if [ "$1" = qbench ]; then shift; qbench "$@"; else command npx "$@"; fi; }`;

function recordedArgv(file: string): string[][] {
  if (!existsSync(file)) return [];
  const words = readFileSync(file, 'utf8').split('\0').slice(0, -1);
  rmSync(file);
  const lines: string[][] = [];
  for (const w of words) {
    if (w === ARGV_MARK) lines.push([]);
    else lines.at(-1)?.push(w);
  }
  return lines;
}

/** The installed package's own main(), loaded from the consumer's node_modules (no process per line). */
type InstalledMain = (argv: readonly string[], io: { stdout: (t: string) => void; stderr: (t: string) => void; isTty: boolean; env: NodeJS.ProcessEnv; signal: AbortSignal }) => Promise<number>;

const resultOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { load?: { scenarios: { name: string; verdict?: unknown }[] } };

const projectOf = (kind: ProjectKind): Consumer => consumers!.projects[kind];

/** The page on the installed package: the lines a new project runs first. */
const INSTALLED_PAGE = 'docs/guides/in-your-project.md';

/** README.md, then every page under docs/ in path order: the text whose command lines run here. */
function docsText(): string {
  const pages = readdirSync('docs', { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  // The pages a newcomer reads first come first: the lines they run make the files later lines read.
  const first = ['docs/getting-started.md', INSTALLED_PAGE];
  return ['README.md', ...first, ...pages.filter((f) => !first.includes(f))].map((f) => readFileSync(f, 'utf8')).join('\n');
}

/**
 * README lines: each meant to run runs as written, every other line is parsed by the installed
 * CLI; `all` false takes the installed-package section's lines only.
 */
async function readmeLines(p: Consumer, all: boolean): Promise<void> {
  const dir = p.dir;
  const commands = readmeCommands(all ? docsText() : readFileSync(INSTALLED_PAGE, 'utf8'));
  expect(commands.length).toBeGreaterThan(all ? 20 : 2);
  const used = new Set<number>();
  const summary = join(dir, 'readme-step-summary.md');
  const argvFile = join(dir, 'readme-argv');
  const installedMain = ((await import(pathToFileURL(join(dir, 'node_modules/qbench/dist/src/cli/main.js')).href)) as { main: InstalledMain }).main;
  const problems: string[] = [];
  let parsed = 0;
  for (const c of commands) {
    const line = asWritten(c.line);
    expect(line, c.line).not.toMatch(/<[^>]*>/);
    const i = RUN_AS_WRITTEN.findIndex((r) => r.match.test(c.line));
    const run = RUN_AS_WRITTEN[i];
    if (run) used.add(i);
    const script = [...(run ? [] : [RECORD_QBENCH]), ...c.prelude, line].join('\n');
    const r = await p.run('bash', ['-eo', 'pipefail', '-c', script], {
      env: { PATH: `${join(dir, 'node_modules/.bin')}:${process.env['PATH'] ?? ''}`, GITHUB_STEP_SUMMARY: summary, QBENCH_ARGV_FILE: argvFile },
      timeoutMs: 60_000,
    });
    const allowed = run?.exit === 'ranOrLate' ? [0, 4] : [0];
    const failed = (code: number, text: string) => problems.push(`${run ? 'ran' : 'parsed'}: ${c.line}\n  exit ${code}: ${text.trim().split('\n').slice(-3).join('\n  ')}`);
    if (!allowed.includes(r.code)) failed(r.code, r.stderr || r.stdout);
    else run?.after?.(dir);
    if (run) continue;
    // Parsed only: each qbench command line of it through the installed CLI with QBENCH_PARSE_ONLY=1.
    const argvs = recordedArgv(argvFile);
    if (argvs.length === 0) failed(r.code, 'no qbench command line was found in it');
    for (const argv of argvs) {
      let text = '';
      const io = { stdout: (t: string) => void (text += t), stderr: (t: string) => void (text += t), isTty: false, env: { QBENCH_PARSE_ONLY: '1' }, signal: new AbortController().signal };
      const code = await installedMain(argv, io);
      parsed++;
      if (code !== 0 || !text.includes('the command line is valid')) failed(code, text);
    }
  }
  expect(problems).toEqual([]);
  expect(parsed).toBeGreaterThan(all ? 15 : 0);
  // Every line meant to run as written is still in the docs (the installed page: its check and its own scenario).
  const expected = all ? RUN_AS_WRITTEN.map((_, i) => i) : [0, 1];
  expect([...used].sort(), RUN_AS_WRITTEN.map((r) => r.match.source).join('\n')).toEqual(expected);
  if (all) expect(readFileSync(summary, 'utf8')).toMatch(/queue\.run\.answer|PASS/);
}

// What does not depend on the project's module system runs once, in the project npm init -y leaves.
describe('qbench installed from its tarball', () => {
  it('npx qbench --version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const r = await projectOf('commonjs').run('npx', ['qbench', '--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  }, 60_000);

  it('a shipped scenario, named as the README names it, runs against --target emulator', async () => {
    const p = projectOf('commonjs');
    const r = await p.run('npx', ['qbench', 'load', 'suites/load/mixed-soak.ts', '--target', 'emulator', '--duration', '3s', '--rate', '10', '--out', 'reports/soak']);
    expect(r.stderr).not.toMatch(/cannot load scenario/);
    expectRanOrLate(r);
    expect(resultOf(join(p.dir, 'reports/soak')).load?.scenarios.map((s) => s.name)).toEqual(['mixed-soak']);
  }, 60_000);

  it('npx qbench check --target emulator --only queue.run.answer passes', async () => {
    const p = projectOf('commonjs');
    const r = await p.run('npx', ['qbench', 'check', '--target', 'emulator', '--only', 'queue.run.answer']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/PASS\s+§4\.1\s+queue\.run\.answer/);
    // Every report format, as load writes them, in reports/<timestamp> and reports/latest.
    const latest = JSON.parse(readFileSync(join(p.dir, 'reports/latest/result.json'), 'utf8')) as { conformance?: { summary: { pass: number } } };
    expect(latest.conformance?.summary.pass).toBe(1);
  }, 60_000);

  it('a TypeScript config file with defineConfig from the package root drives check: --target <name>', async () => {
    const p = projectOf('commonjs');
    writeFileSync(
      join(p.dir, 'ci.config.ts'),
      `import { defineConfig } from 'qbench';\n\nexport default defineConfig({ targets: { local: { url: 'emulator' } }, conformance: { only: ['queue.run.answer'] }, reportDir: 'reports/from-config' });\n`,
    );
    const r = await p.run('npx', ['qbench', 'check', '--config', 'ci.config.ts', '--target', 'local']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1 pass, 0 fail/);
    expect(existsSync(join(p.dir, 'reports/from-config/result.json'))).toBe(true);
  }, 60_000);

  // Loading a handler of each kind in each project is tested below; the bin's serving and stop, once.
  it('qbench worker --handler handler.ts (the installed bin) serves a job from an emulator, then stops on SIGTERM', async () => {
    const p = projectOf('commonjs');
    const emu = await startEmulator({ apiKey: KEY, port: 0, externalWorkers: true, timeScale: 10, workerPingIntervalMs: 500, workerTakeLongPollMs: 1_000 });
    // The bin npx would run (node_modules/.bin/qbench), started directly: npx starts it through
    // `sh -c`, which does not pass SIGTERM on, and this test is about the graceful stop.
    const proc = spawn(join(p.dir, 'node_modules/.bin/qbench'), ['worker', '--handler', 'handler.ts', '--url', emu.url, '--endpoint', 'demo', '--worker-id', 'installed-w1'], {
      cwd: p.dir,
      env: { ...process.env, RUNPOD_AI_API_KEY: KEY, RUNPOD_PING_INTERVAL: '500' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    try {
      await until(() => attached(emu, 'installed-w1'), 'the installed worker to attach');
      const r = await client(emu)('POST', '/v2/demo/runsync', { input: { n: 7 } });
      expect(r.body).toMatchObject({ status: 'COMPLETED', output: { echo: { n: 7 }, from: 'handler.ts' }, workerId: 'installed-w1' });
      proc.kill('SIGTERM');
      expect(await exited, out).toBe(0);
      expect(out).toMatch(/qbench worker installed-w1: stopped after 1 jobs \(1 completed, 0 failed/);
    } finally {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
      await emu.close();
    }
  }, 60_000);

  it('ships the compiled suites beside their sources', () => {
    const dir = projectOf('commonjs').dir;
    expect(existsSync(join(dir, 'node_modules/qbench/suites/load/rate-limit.ts'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules/qbench/dist/suites/load/rate-limit.js'))).toBe(true);
  });
});

describe.each([
  { kind: 'commonjs' as const, made: 'as npm init -y leaves it ("type": "commonjs")' },
  { kind: 'module' as const, made: 'with "type": "module"' },
])('in a project made by npm init -y, $made', ({ kind }) => {
  it('config, scenario and handler files of every extension load, importing the CLI\'s own qbench; top-level await needs a module', async () => {
    const p = projectOf(kind);
    mkdirSync(join(p.dir, 'types'));
    for (const ext of EXTENSIONS) for (const [name, text] of Object.entries(filesOfType(kind, ext))) writeFileSync(join(p.dir, 'types', name), text);
    writeFileSync(join(p.dir, 'types/awaits.ts'), AWAITS_TS);
    writeFileSync(join(p.dir, 'load-every-type.mjs'), LOAD_EVERY_TYPE);
    const r = await p.run('node', ['load-every-type.mjs', ...EXTENSIONS]);
    expect(r.code, r.stderr).toBe(0);
    type Loaded = { config: { code: number; text: string }; scenario: unknown; handler: unknown };
    const results = JSON.parse(r.stdout) as Record<Extension, Loaded> & { awaits: { code: number; text: string } };
    if (kind === 'module') expect(results.awaits.code, results.awaits.text).toBe(0);
    else {
      expect(results.awaits.code).toBe(2);
      expect(results.awaits.text).toMatch(/awaits\.ts is CommonJS, where top-level await does not exist: name it \.mts, or set "type": "module"/);
    }
    for (const ext of EXTENSIONS) {
      const got = results[ext];
      expect(got.config, `config.${ext}`).toEqual({ code: 0, text: 'qbench check: the command line is valid (QBENCH_PARSE_ONLY=1: nothing run)' });
      expect(got.scenario, `scenario.${ext}`).toEqual([`types-${ext}`]);
      expect(got.handler, `handler.${ext}`).toEqual({ echo: { n: 1 }, sameQbench: true });
    }
  }, 60_000);

  it("the user's own .ts scenario loads, in worker threads too", async () => {
    const p = projectOf(kind);
    const r = await p.run('npx', ['qbench', 'load', 'my-scenario.ts', '--target', 'emulator', '--threads', '2', '--out', 'reports/mine']);
    expect(r.stderr).not.toMatch(/cannot load scenario|Unknown file extension/);
    expectRanOrLate(r);
    expect(resultOf(join(p.dir, 'reports/mine')).load?.scenarios.map((s) => s.name)).toEqual(['my-health']);
  }, 60_000);

  // The whole README once; its other sections load no user file (and no config file yet), so
  // they do not depend on the project's module system.
  it(kind === 'commonjs' ? 'every qbench command line of README.md and docs/ runs as written (the rest parse, as written)' : 'the installed-package lines of the docs run as written', async () => {
    await readmeLines(projectOf(kind), kind === 'commonjs');
  }, 240_000);

  // Last: it leaves a qbench.config.ts in the project, which every later command would read.
  it(kind === 'commonjs' ? 'qbench init, then the commands it prints and the workflow lines it writes, run as written' : 'qbench init, then the commands it prints, run as written', async () => {
    const p = projectOf(kind);
    const init = await p.run('npx', ['qbench', 'init']);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    const next = /^next: (.+)$/m.exec(init.stdout)?.[1];
    expect(next, init.stdout).toMatch(/^npx qbench check --target local && npx qbench load scenarios\/example\.ts --target local$/);
    // The config as written, with its conformance selection narrowed to one check: what is tested
    // here is that the file loads in this project (the quick profile has its own tests).
    const configFile = join(p.dir, 'qbench.config.ts');
    const written = readFileSync(configFile, 'utf8');
    expect(written).toContain("conformance: { profile: 'quick' }");
    writeFileSync(configFile, written.replace("conformance: { profile: 'quick' }", "conformance: { profile: 'quick', only: ['queue.run.answer'] }"));
    const printed = await p.run('bash', ['-eo', 'pipefail', '-c', next!], { timeoutMs: 120_000 });
    expect(printed.stdout, printed.stdout + printed.stderr).toMatch(/1 pass, 0 fail/);
    expectRanOrLate(printed);
    expect(resultOf(join(p.dir, 'reports/latest')).load?.scenarios.map((s) => s.name)).toEqual(['example']);
    // The workflow's lines run the same commands with the same files: once, in the project npm init -y leaves.
    if (kind === 'module') return;

    const workflow = readFileSync(join(p.dir, '.github/workflows/qbench.yml'), 'utf8');
    const lines = [...workflow.matchAll(/^\s*run:\s*(.+)$/gm)].map((m) => m[1]!);
    expect(lines.length).toBe(6);
    const summary = join(p.dir, 'step-summary.md');
    writeFileSync(summary, '');
    // GitHub's shell for run: lines; offline npm (the cache has every package); no gh login here,
    // so the baseline download falls through to its "no baseline yet" branch.
    const step = (line: string) => p.run('bash', ['-eo', 'pipefail', '-c', line], { env: { GITHUB_STEP_SUMMARY: summary, npm_config_offline: 'true', GH_TOKEN: '' }, timeoutMs: 120_000 });
    for (const line of lines) {
      const r = await step(line);
      if (line.includes('qbench load')) expectRanOrLate(r);
      else expect(r.code, `${line}\n${r.stdout}${r.stderr}`).toBe(0);
    }
    expect(readFileSync(summary, 'utf8')).toMatch(/example/);
    // The next run finds a baseline: the compare line runs and adds the comparison to the summary.
    mkdirSync(join(p.dir, 'baseline'));
    copyFileSync(join(p.dir, 'reports/load/result.json'), join(p.dir, 'baseline/result.json'));
    const compare = lines.find((l) => l.includes('qbench compare'))!;
    const r = await step(compare);
    // 0: no significant change; 1: a significant regression between two runs on a shared machine;
    // 4: a run it compares was itself an invalid measurement (the generator fell behind on a loaded
    // machine, which the load step above tolerates too), and the comparison must say so.
    expect([0, 1, 4], r.stdout + r.stderr).toContain(r.code);
    const comparison = JSON.parse(readFileSync(join(p.dir, 'reports/compare/comparison.json'), 'utf8')) as { verdict: { status: string; reasons: string[] } };
    expect(comparison.verdict.status).toBe(r.code === 0 ? 'pass' : r.code === 1 ? 'fail' : 'invalid');
    if (r.code === 4) expect(comparison.verdict.reasons.join('\n')).toMatch(/(baseline|candidate) measurement is invalid/);
  }, 240_000);
});
