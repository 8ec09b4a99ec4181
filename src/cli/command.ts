// The shape of one CLI command module. Each command lives in src/cli/commands/<name>.ts and
// is listed in src/cli/commands/index.ts; main.ts registers them all with yargs from their
// option declarations (src/cli/options.ts) and hands `run` the parsed, validated options.
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

export interface CommandModule<O extends OptionSet = OptionSet> {
  /** yargs command string, e.g. 'emulate' or 'report <result>'. */
  readonly command: string;
  readonly describe: string;
  /** Every option, declared once: flag, type, help, config key, default. */
  readonly options: O;
  /** What the declarations do not say: examples. */
  readonly builder?: (y: Argv) => Argv;
  /** Do the work and resolve to the exit code. Throw a QbenchError for usage/config problems. */
  run(flags: Flags<O>, io: CliIo, invocation: Invocation): Promise<ExitCode>;
}

/** A command module, its options typed by its declarations. */
export function defineCommand<O extends OptionSet>(c: CommandModule<O>): CommandModule<O> {
  return c;
}
