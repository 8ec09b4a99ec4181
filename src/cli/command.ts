// The shape of one CLI command, in three parts loaded as needed: its entry in
// src/cli/commands/index.ts (command string, help line), its declaration in
// src/cli/commands/<name>.ts (options as data, examples), imported when the command is parsed,
// and its work in src/cli/commands/<name>-run.ts, imported by `lazyRun` when it runs. main.ts
// registers the entries with yargs, declares a command's options (src/cli/options.ts) when
// yargs builds it, and hands `run` the parsed, validated options.
import type { Argv } from 'yargs';
import type { ExitCode } from '../exit-codes.js';
import type { Flags, OptionSet } from './options.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** True when stdout is an interactive terminal (live progress displays). */
  isTty: boolean;
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  /** Ask a question on the terminal and resolve to the answer; absent when stdin is not a terminal (CI). */
  ask?: ((question: string) => Promise<string>) | undefined;
}

/** How the command was invoked. */
export interface Invocation {
  /** The command line as typed (`qbench <command> ...`), for the result's record of it. */
  readonly commandLine: readonly string[];
}

/** A command as --help lists it, and how to import its declaration. */
export interface CommandEntry {
  /** yargs command string, e.g. 'emulate' or 'report <result>'. */
  readonly command: string;
  readonly describe: string;
  readonly load: () => Promise<CommandModule>;
}

/** A command's declaration: its options, examples and work. */
export interface CommandModule<O extends OptionSet = OptionSet> {
  /** Every option, declared once: flag, type, help, config key, default. */
  readonly options: O;
  /** What the declarations do not say: examples. */
  readonly builder?: (y: Argv) => Argv;
  /** Do the work and resolve to the exit code. Throw a QbenchError for usage/config problems. */
  run(flags: Flags<O>, io: CliIo, invocation: Invocation): Promise<ExitCode>;
}

export type RunCommand<O extends OptionSet> = (flags: Flags<O>, io: CliIo, invocation: Invocation) => Promise<ExitCode>;

/** A `run` that imports the command's implementation (and what it needs) when first called. */
export function lazyRun<O extends OptionSet>(load: () => Promise<RunCommand<O>>): RunCommand<O> {
  return async (flags, io, invocation) => (await load())(flags, io, invocation);
}

/** A command module, its options typed by its declarations. */
export function defineCommand<O extends OptionSet>(c: CommandModule<O>): CommandModule<O> {
  return c;
}

/** The command's name: the first word of its yargs command string. */
export function commandName(c: Pick<CommandEntry, 'command'>): string {
  return c.command.split(' ')[0] ?? '';
}
