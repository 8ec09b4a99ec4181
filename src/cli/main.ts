// The CLI: yargs commands declared from each command's options (src/cli/options.ts). bin.ts
// hands it the command line; it is the only reader of argv and env and decides exit codes.
// What a command line needs is imported when it is known: `--version` alone loads neither yargs
// nor the declarations, `--help` loads the declarations, and a command's work is imported by
// its `run` (src/cli/command.ts, lazyRun).
import { createInterface } from 'node:readline/promises';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { QbenchError, redactSecrets } from '../errors.js';
import { VERSION } from '../version.js';
import { commandName, type CliIo, type CommandModule } from './command.js';
import type { LoadedConfig } from '../config/load-config.js';
import type { Argv } from 'yargs';
import { DESCRIPTION, helpWidth, renderTopHelp, USAGE } from './top-help.js';

export type { CliIo } from './command.js';

/**
 * Set to 1, the CLI parses the command line and the config file, checks every option and the
 * --target grammar, and exits 0 without running anything (no network, no files written): the
 * docs test (test/integration/package/installed.test.ts) uses it for the command lines that need
 * a deployment. Not a user option.
 */
export const PARSE_ONLY_ENV = 'QBENCH_PARSE_ONLY';

/** What parse-only mode checks beyond the options: the target grammar. */
async function checkParsed(name: string, flags: Readonly<Record<string, unknown>>, io: CliIo): Promise<ExitCode> {
  const { EMULATOR_TARGET, parseTarget } = await import('../target/target-flag.js');
  const target = flags['target'];
  const endpoint = flags['endpoint'];
  if (typeof target === 'string' && target !== EMULATOR_TARGET) parseTarget(target, typeof endpoint === 'string' ? endpoint : undefined);
  io.stderr(`qbench ${name}: the command line is valid (${PARSE_ONLY_ENV}=1: nothing run)\n`);
  return EXIT.OK;
}

async function readConfigFile(command: string, file: unknown): Promise<LoadedConfig | undefined> {
  if (file !== undefined && typeof file !== 'string') throw new QbenchError('QB_ERR_USAGE', '--config: give one file, once');
  const { loadConfig } = await import('../config/load-config.js');
  try {
    return await loadConfig(file);
  } catch (e) {
    // Before the config file, `emulate --config` took the emulator's own JSON settings.
    if (command === 'emulate' && file !== undefined && e instanceof QbenchError) throw new QbenchError(e.code, `${e.message}\n(the emulator's own JSON settings go to --emulator-config; --config takes a qbench.config file with an emulator section)`);
    throw e;
  }
}

export function defaultIo(signal: AbortSignal = new AbortController().signal): CliIo {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    isTty: Boolean(process.stdout.isTTY) && !process.env['CI'],
    env: process.env,
    signal,
    ask: process.stdin.isTTY ? askOnTerminal : undefined,
  };
}

/** One line read from the terminal after `question`. */
async function askOnTerminal(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

/** The yargs parser of the top level, before the commands are registered. */
export async function topParser(argv: readonly string[], width: number): Promise<Argv> {
  const { default: yargs } = await import('yargs');
  return yargs([...argv])
    .scriptName('qbench')
    .usage(`${USAGE}\n\n${DESCRIPTION}`)
    .version(VERSION)
    .strict()
    .demandCommand(1, 'Name a command: see qbench --help.')
    .recommendCommands()
    .wrap(width);
}

/** The part of yargs' internals that renders a command's help before its handler goes on. */
interface YargsUsageInternals {
  getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } | undefined };
}

/**
 * yargs renders the whole help of a command as the command's handler starts (blocking, about
 * 50 ms for `load`'s options on an idle 2-core machine), to print it on a later failure; qbench
 * prints its own message on a failure instead, so that render is skipped. A yargs without
 * these internals is left as it is.
 */
export function skipHelpRender(parser: Argv): void {
  const usage = (parser as unknown as YargsUsageInternals).getInternalMethods?.().getUsageInstance?.();
  if (usage !== undefined && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}

/** Run the CLI with `argv` (without node and script); resolve to the exit code. */
export async function main(argv: readonly string[], io: CliIo = defaultIo()): Promise<ExitCode> {
  // What yargs prints for it, without loading yargs or any command.
  if (argv.length === 1 && argv[0] === '--version') {
    io.stdout(`${VERSION}\n`);
    return EXIT.OK;
  }
  const width = helpWidth(process.stdout.columns);
  if (argv.length === 1 && argv[0] === '--help') {
    const { COMMANDS } = await import('./commands/index.js');
    const help = renderTopHelp('qbench', COMMANDS, width);
    if (help !== undefined) {
      io.stdout(`${help}\n`);
      return EXIT.OK;
    }
  }
  let exitCode: ExitCode = EXIT.OK;
  let parser = await topParser(argv, width);
  const { COMMANDS } = await import('./commands/index.js');
  for (const entry of COMMANDS) {
    const name = commandName(entry);
    // yargs calls the builder only for the command on the command line: its declaration is
    // imported then, and the handler runs after the builder.
    let declared: { cmd: CommandModule; readsConfig: boolean } | undefined;
    const declare = async () => {
      if (declared) return declared;
      const [cmd, { readsConfig }] = await Promise.all([entry.load(), import('./options.js')]);
      declared = { cmd, readsConfig: readsConfig(cmd.options) };
      return declared;
    };
    parser = parser.command(
      entry.command,
      entry.describe,
      async (y) => {
        const { cmd, readsConfig } = await declare();
        const [{ declareOptions }, { configOption }] = await Promise.all([import('./options.js'), import('./target-options.js')]);
        return declareOptions(cmd.builder ? cmd.builder(y) : y, readsConfig ? { ...cmd.options, config: configOption } : cmd.options);
      },
      async (args) => {
        const { cmd, readsConfig } = await declare();
        const { parseOptions } = await import('./options.js');
        const loaded = readsConfig ? await readConfigFile(name, args['config']) : undefined;
        const flags = parseOptions(name, cmd.options, args, loaded);
        exitCode = io.env[PARSE_ONLY_ENV] === '1' ? await checkParsed(name, flags, io) : await cmd.run(flags, io, { commandLine: ['qbench', ...argv] });
      },
    );
  }
  parser = parser
    .fail((msg, err) => {
      if (err) throw err;
      throw new QbenchError('QB_ERR_USAGE', msg);
    })
    .exitProcess(false)
    .help();
  skipHelpRender(parser);

  try {
    let helpOut = '';
    await parser.parseAsync([...argv], {}, (err, _argv, output) => {
      if (!err && output) helpOut = output;
    });
    if (helpOut) io.stdout(`${helpOut}\n`);
  } catch (e) {
    if (e instanceof QbenchError) {
      io.stderr(`qbench: ${e.message}\n`);
      if (e.code === 'QB_ERR_USAGE' || e.code === 'QB_ERR_CONFIG') io.stderr('Run qbench --help for the commands and their options.\n');
      return e.exitCode;
    }
    io.stderr(`qbench: internal error: ${redactSecrets(e instanceof Error ? (e.stack ?? e.message) : String(e))}\n`);
    return EXIT.INTERNAL;
  }
  return exitCode;
}
