// `qbench load <scenario files...> --target <url|emulator>`: run load scenarios, print live
// progress and a verdict per scenario, write every report format through src/report, and exit
// 0 pass (an inconclusive scenario too, unless --strict) / 1 failed threshold or verdict / 2 bad
// scenario or flag / 4 invalid measurement / 5 nothing answered the preflight request
// (src/load/preflight.ts). Any scenario field can be overridden with --set path=value and is
// validated with the scenario itself.
import { defineCommand, lazyRun } from '../command.js';
import { loadOptions } from '../load-options.js';

export const loadCommand = defineCommand({
  options: loadOptions,
  run: lazyRun(async () => (await import('./load-run.js')).runLoadCommand),
});
