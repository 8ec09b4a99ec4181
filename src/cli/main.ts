// The CLI: yargs commands. The only place that reads argv and env and decides exit codes.
import yargs from 'yargs';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { QbenchError, redactSecrets } from '../errors.js';
import { VERSION } from '../version.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const defaultIo: CliIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

/** Run the CLI with `argv` (without node and script); resolve to the exit code. */
export async function main(argv: readonly string[], io: CliIo = defaultIo): Promise<ExitCode> {
  let exitCode: ExitCode = EXIT.OK;
  const setExit = (code: ExitCode) => {
    exitCode = code;
  };
  const parser = yargs([...argv])
    .scriptName('qbench')
    .usage('$0 <command> [options]\n\nLoad-testing, conformance and fuzzing for queue-based inference endpoints.')
    .version(VERSION)
    .strict()
    .demandCommand(1, 'Name a command: see qbench --help.')
    .recommendCommands()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .command('start', 'Run the main job on the embedded emulator and write a report', () => {}, () => {
      io.stdout('qbench start: the emulator and the suites are not built yet; nothing to run.\n');
      setExit(EXIT.OK);
    })
    .fail((msg, err) => {
      if (err) throw err;
      throw new QbenchError('QB_ERR_USAGE', msg);
    })
    .exitProcess(false)
    .help();

  try {
    let helpOut = '';
    await parser.parseAsync([...argv], {}, (err, _argv, output) => {
      if (!err && output) helpOut = output;
    });
    if (helpOut) io.stdout(`${helpOut}\n`);
  } catch (e) {
    if (e instanceof QbenchError) {
      io.stderr(`qbench: ${e.message}\n`);
      if (e.code === 'QB_ERR_USAGE') io.stderr('Run qbench --help for the commands and their options.\n');
      return e.exitCode;
    }
    io.stderr(`qbench: internal error: ${redactSecrets(e instanceof Error ? (e.stack ?? e.message) : String(e))}\n`);
    return EXIT.INTERNAL;
  }
  return exitCode;
}
