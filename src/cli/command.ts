// The shape of one CLI command module. Each command lives in src/cli/commands/<name>.ts and
// is listed in src/cli/commands/index.ts; main.ts registers them all with yargs.
import type { Argv } from 'yargs';
import type { ExitCode } from '../exit-codes.js';

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

export interface CommandModule {
  /** yargs command string, e.g. 'emulate' or 'report <result>'. */
  command: string;
  describe: string;
  /** Declare the options; validation of values happens in `run` with zod (one schema per command). */
  builder: (y: Argv) => Argv;
  /** Do the work and resolve to the exit code. Throw a QbenchError for usage/config problems. */
  run: (argv: Record<string, unknown>, io: CliIo) => Promise<ExitCode>;
}
